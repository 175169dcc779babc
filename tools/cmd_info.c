// SPDX-License-Identifier: MIT
/*
 * llmem info: what the session reports about a device, for people (the
 * default) and for scripts (--json).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llmem/llmem.h>

#include "commands.h"
#include "vk_names.h"

static const struct {
	uint32_t bit;
	const char *name;
} memory_bits[] = {
	{ 0x01, "DEVICE_LOCAL" },	 { 0x02, "HOST_VISIBLE" },
	{ 0x04, "HOST_COHERENT" },	 { 0x08, "HOST_CACHED" },
	{ 0x10, "LAZILY_ALLOCATED" },	 { 0x20, "PROTECTED" },
	{ 0x40, "DEVICE_COHERENT_AMD" }, { 0x80, "DEVICE_UNCACHED_AMD" },
	{ 0x100, "RDMA_CAPABLE_NV" },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* "A|B|C", or "none"; the buffer is reused by the next call. */
static const char *flag_names(uint32_t flags, char *buf, size_t len, const char *sep)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < N(memory_bits); i++) {
		if (!(flags & memory_bits[i].bit))
			continue;
		at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? sep : "",
				       memory_bits[i].name);
		if (at >= len)
			break;
	}
	return buf[0] ? buf : "none";
}

static void api_version(uint32_t v, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u", (v >> 22) & 0x7f, (v >> 12) & 0x3ff, v & 0xfff);
}

static void print_human(const struct llmem_session_info *i)
{
	char buf[256], api[32];

	api_version(i->api_version, api, sizeof(api));
	printf("device:   %s\n", i->device_name);
	printf("type:     %s (vendor 0x%04x, device 0x%04x)\n", vk_device_type_name(i->device_type),
	       i->vendor_id, i->device_id);
	printf("driver:   %s%s%s\n", i->driver_name[0] ? i->driver_name : "(unknown)",
	       i->driver_info[0] ? ", " : "", i->driver_info);
	printf("api:      %s\n", api);
	printf("\nmemory heaps:\n");
	for (uint32_t h = 0; h < i->memory_heap_count; h++)
		printf("  %u: %8.1f MiB%s\n", h, (double)i->memory_heaps[h].size / (1 << 20),
		       i->memory_heaps[h].flags & 1 ? "  DEVICE_LOCAL" : "");
	printf("memory types:\n");
	for (uint32_t t = 0; t < i->memory_type_count; t++)
		printf("  %u: heap %u  %s\n", t, i->memory_types[t].heap_index,
		       flag_names(i->memory_types[t].flags, buf, sizeof(buf), "|"));
	printf("supported flag sets:\n");
	for (uint32_t f = 0; f < i->flag_set_count; f++)
		printf("  %s\n", flag_names(i->flag_sets[f], buf, sizeof(buf), "|"));
	printf("\nlimits:\n");
	printf("  bufferImageGranularity          %llu\n",
	       (unsigned long long)i->buffer_image_granularity);
	printf("  nonCoherentAtomSize             %llu\n",
	       (unsigned long long)i->non_coherent_atom_size);
	printf("  minImportedHostPointerAlignment %llu\n",
	       (unsigned long long)i->min_imported_host_pointer_alignment);
	printf("\ncapabilities:\n");
	for (size_t c = 0; c < vk_cap_name_count; c++)
		printf("  %-22s %s\n", vk_cap_names[c].name,
		       i->caps & vk_cap_names[c].bit ? "yes" : "no");
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void json_flags(uint32_t flags)
{
	bool first = true;

	putchar('[');
	for (size_t b = 0; b < N(memory_bits); b++) {
		if (!(flags & memory_bits[b].bit))
			continue;
		printf("%s\"%s\"", first ? "" : ", ", memory_bits[b].name);
		first = false;
	}
	putchar(']');
}

static void print_json(const struct llmem_session_info *i)
{
	char api[32];

	api_version(i->api_version, api, sizeof(api));
	printf("{\n  \"device_name\": ");
	json_string(i->device_name);
	printf(",\n  \"driver_name\": ");
	json_string(i->driver_name);
	printf(",\n  \"driver_info\": ");
	json_string(i->driver_info);
	printf(",\n  \"api_version\": \"%s\",\n", api);
	printf("  \"vendor_id\": %u,\n  \"device_id\": %u,\n  \"device_type\": \"%s\",\n",
	       i->vendor_id, i->device_id, vk_device_type_name(i->device_type));
	printf("  \"memory_heaps\": [");
	for (uint32_t h = 0; h < i->memory_heap_count; h++)
		printf("%s\n    {\"index\": %u, \"size\": %llu, \"device_local\": %s}",
		       h ? "," : "", h, (unsigned long long)i->memory_heaps[h].size,
		       i->memory_heaps[h].flags & 1 ? "true" : "false");
	printf("\n  ],\n  \"memory_types\": [");
	for (uint32_t t = 0; t < i->memory_type_count; t++) {
		printf("%s\n    {\"index\": %u, \"heap\": %u, \"flags\": ", t ? "," : "", t,
		       i->memory_types[t].heap_index);
		json_flags(i->memory_types[t].flags);
		putchar('}');
	}
	printf("\n  ],\n  \"supported_flag_sets\": [");
	for (uint32_t f = 0; f < i->flag_set_count; f++) {
		printf("%s\n    ", f ? "," : "");
		json_flags(i->flag_sets[f]);
	}
	printf("\n  ],\n  \"limits\": {\"buffer_image_granularity\": %llu, "
	       "\"non_coherent_atom_size\": %llu, \"min_imported_host_pointer_alignment\": "
	       "%llu},\n",
	       (unsigned long long)i->buffer_image_granularity,
	       (unsigned long long)i->non_coherent_atom_size,
	       (unsigned long long)i->min_imported_host_pointer_alignment);
	printf("  \"capabilities\": {");
	for (size_t c = 0; c < vk_cap_name_count; c++)
		printf("%s\"%s\": %s", c ? ", " : "", vk_cap_names[c].name,
		       i->caps & vk_cap_names[c].bit ? "true" : "false");
	printf("}\n}\n");
}

static struct {
	bool json;
	bool validation;
	const char *device;
} args;

static const struct cli_option options[] = {
	CLI_OPTION_JSON(&args.json),
	{ .name = "device",
	  .short_name = 'd',
	  .type = CLI_STRING,
	  .value = &args.device,
	  .meta = "INDEX|NAME",
	  .help = "the Vulkan device, by index or a piece of its name (LLMEM_DEVICE wins)" },
	{ .name = "validation",
	  .short_name = 'v',
	  .type = CLI_FLAG,
	  .value = &args.validation,
	  .help = "with the Vulkan validation layer on" },
	{ 0 },
};

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	struct llmem_session_create_info ci = { .app_name = "llmem info" };
	struct llmem_session_info info;
	struct llmem_session *s;
	uint64_t index;
	int ret;

	ret = cli_parse(cmd, argc, argv);
	if (ret <= 0)
		return -ret;
	if (args.device && !cli_parse_uint(args.device, 0, UINT32_MAX, &index))
		ci.device_index = (uint32_t)index;
	else
		ci.device_name = args.device;
	if (args.validation)
		ci.flags |= LLMEM_SESSION_VALIDATION;
	ret = llmem_session_create(&ci, &s);
	if (ret)
		return cli_fail(cmd, CLI_FAILED, "Vulkan session: %s", llmem_last_error());
	llmem_session_get_info(s, &info);
	if (args.json)
		print_json(&info);
	else
		print_human(&info);
	llmem_session_destroy(s);
	return CLI_OK;
}

const struct cli_command cmd_info = {
	.name = "info",
	.summary = "describe a Vulkan device: memory, limits, capabilities",
	.description =
		"Describes a Vulkan device as libllmem sees it: its driver, memory types and\n"
		"heaps, the memory flag sets a memory can ask for, the limits the\n"
		"sub-allocator honours, and what the device can share (DMA-BUF export\n"
		"and import, host pointers, DRM format modifiers, /dev/llmem).",
	.options = options,
	.run = run,
};
