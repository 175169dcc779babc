// SPDX-License-Identifier: MIT
/*
 * llmem info: what the session reports about a device, and the DRM devices
 * it could hand frames to, for people (the default) and for scripts
 * (--json).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llmem/llmem.h>

#include "commands.h"
#include "devices.h"
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

static void emit_flags(struct emit *e, const char *key, uint32_t flags)
{
	emit_array(e, key);
	for (size_t b = 0; b < N(memory_bits); b++)
		if (flags & memory_bits[b].bit)
			emit_string(e, NULL, memory_bits[b].name);
	emit_end(e);
}

static void emit_device(struct emit *e, const struct llmem_session_info *i)
{
	char api[32];

	api_version(i->api_version, api, sizeof(api));
	emit_string(e, "device_name", i->device_name);
	emit_string(e, "driver_name", i->driver_name);
	emit_string(e, "driver_info", i->driver_info);
	emit_string(e, "api_version", api);
	emit_uint(e, "vendor_id", i->vendor_id);
	emit_uint(e, "device_id", i->device_id);
	emit_string(e, "device_type", vk_device_type_name(i->device_type));
	emit_array(e, "memory_heaps");
	for (uint32_t h = 0; h < i->memory_heap_count; h++) {
		emit_object(e, NULL);
		emit_uint(e, "index", h);
		emit_uint(e, "size", i->memory_heaps[h].size);
		emit_bool(e, "device_local", i->memory_heaps[h].flags & 1);
		emit_end(e);
	}
	emit_end(e);
	emit_array(e, "memory_types");
	for (uint32_t t = 0; t < i->memory_type_count; t++) {
		emit_object(e, NULL);
		emit_uint(e, "index", t);
		emit_uint(e, "heap", i->memory_types[t].heap_index);
		emit_flags(e, "flags", i->memory_types[t].flags);
		emit_end(e);
	}
	emit_end(e);
	emit_array(e, "supported_flag_sets");
	for (uint32_t f = 0; f < i->flag_set_count; f++)
		emit_flags(e, NULL, i->flag_sets[f]);
	emit_end(e);
	emit_object(e, "limits");
	emit_uint(e, "buffer_image_granularity", i->buffer_image_granularity);
	emit_uint(e, "non_coherent_atom_size", i->non_coherent_atom_size);
	emit_uint(e, "min_imported_host_pointer_alignment", i->min_imported_host_pointer_alignment);
	emit_end(e);
	emit_object(e, "capabilities");
	for (size_t c = 0; c < vk_cap_name_count; c++)
		emit_bool(e, vk_cap_names[c].name, i->caps & vk_cap_names[c].bit);
	emit_end(e);
}

static struct {
	bool json, quiet;
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
	CLI_OPTION_QUIET(&args.quiet, "accepted as every command accepts it: info prints "
				      "no progress"),
	{ 0 },
};

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	struct llmem_session_create_info ci = { .app_name = "llmem info" };
	struct llmem_session_info info;
	struct llmem_session *s;
	struct emit e;
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
	llmem_session_destroy(s);
	/* The display half is the same description `llmem devices` gives,
	 * so that both commands and their JSON agree. */
	if (args.json) {
		emit_begin(&e, stdout, true);
		emit_device(&e, &info);
	} else {
		print_human(&info);
		putchar('\n');
		emit_begin(&e, stdout, false);
	}
	devices_drm(&e);
	emit_finish(&e);
	return CLI_OK;
}

const struct cli_command cmd_info = {
	.name = "info",
	.summary = "describe a Vulkan device: memory, limits, capabilities",
	.description =
		"Describes a Vulkan device as libllmem sees it: its driver, memory types and\n"
		"heaps, the memory flag sets a memory can ask for, the limits the\n"
		"sub-allocator honours, and what the device can share (DMA-BUF export\n"
		"and import, host pointers, DRM format modifiers, /dev/llmem).  Then the\n"
		"machine's DRM devices, as `llmem devices` lists them: whether each\n"
		"imports and exports DMA-BUFs (PRIME) and, for displays, every plane with\n"
		"the formats and modifiers it scans out.",
	.options = options,
	.run = run,
};
