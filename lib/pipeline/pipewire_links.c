// SPDX-License-Identifier: MIT
/* A node's output links, watched for failed negotiations (pipewire_links.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "pipeline/pipewire_links.h"

static void report(struct pipewire_link *link, const char *why)
{
	struct pipewire_links *l = link->owner;

	if (link->reported)
		return;
	link->reported = true;
	l->failed++;
	l->failed_consumer = link->input_node;
	snprintf(l->error, sizeof(l->error), "link %u to node %u: %s", link->id, link->input_node,
		 why);
}

static void drop_proxy(struct pipewire_link *link)
{
	if (!link->proxy)
		return;
	spa_hook_remove(&link->link_listener);
	spa_hook_remove(&link->proxy_listener);
	pw_proxy_destroy(link->proxy);
	link->proxy = NULL;
}

static void forget(struct pipewire_link *link)
{
	drop_proxy(link);
	memset(link, 0, sizeof(*link));
}

static void on_link_info(void *data, const struct pw_link_info *info)
{
	struct pipewire_link *link = data;

	if (!(info->change_mask & PW_LINK_CHANGE_MASK_STATE))
		return;
	if (info->state == PW_LINK_STATE_ERROR)
		report(link, info->error ? info->error : "its negotiation failed");
	else if ((int)info->state > link->state)
		link->state = info->state;
}

static const struct pw_link_events link_events = {
	.version = PW_VERSION_LINK_EVENTS,
	.info = on_link_info,
};

static void on_proxy_removed(void *data)
{
	drop_proxy(data);
}

static const struct pw_proxy_events proxy_events = {
	.version = PW_VERSION_PROXY_EVENTS,
	.removed = on_proxy_removed,
};

static uint32_t dict_uint(const struct spa_dict *props, const char *key)
{
	const char *v = props ? spa_dict_lookup(props, key) : NULL;

	return v ? (uint32_t)strtoul(v, NULL, 10) : UINT32_MAX;
}

static void on_global(void *data, uint32_t id, uint32_t permissions, const char *type,
		      uint32_t version, const struct spa_dict *props)
{
	struct pipewire_links *l = data;
	struct pipewire_link *link = NULL;

	(void)permissions;
	(void)version;
	if (strcmp(type, PW_TYPE_INTERFACE_Link) || *l->node_id == UINT32_MAX ||
	    dict_uint(props, PW_KEY_LINK_OUTPUT_NODE) != *l->node_id)
		return;
	for (int i = 0; i < PIPEWIRE_LINKS_MAX && !link; i++)
		if (!l->links[i].owner)
			link = &l->links[i];
	/* More consumers than that at once: the others go unwatched. */
	if (!link)
		return;
	*link = (struct pipewire_link){
		.owner = l,
		.id = id,
		.input_node = dict_uint(props, PW_KEY_LINK_INPUT_NODE),
		.state = PW_LINK_STATE_INIT,
	};
	link->proxy = pw_registry_bind(l->registry, id, PW_TYPE_INTERFACE_Link, PW_VERSION_LINK, 0);
	if (!link->proxy)
		return;
	pw_proxy_add_object_listener(link->proxy, &link->link_listener, &link_events, link);
	pw_proxy_add_listener(link->proxy, &link->proxy_listener, &proxy_events, link);
}

static void on_global_remove(void *data, uint32_t id)
{
	struct pipewire_links *l = data;

	for (int i = 0; i < PIPEWIRE_LINKS_MAX; i++) {
		struct pipewire_link *link = &l->links[i];

		if (!link->owner || link->id != id)
			continue;
		if (link->state < PW_LINK_STATE_ALLOCATING)
			report(link, "removed before a format was agreed: none in common? (the "
				     "daemon's log lists both sides' formats)");
		forget(link);
	}
}

static const struct pw_registry_events registry_events = {
	.version = PW_VERSION_REGISTRY_EVENTS,
	.global = on_global,
	.global_remove = on_global_remove,
};

int llmem_pipewire_links_watch(struct pipewire_links *l, struct pw_core *core,
			       const uint32_t *node_id)
{
	l->node_id = node_id;
	l->registry = pw_core_get_registry(core, PW_VERSION_REGISTRY, 0);
	if (!l->registry)
		return llmem_error(-errno ? -errno : -ENOMEM, "pipewire: the registry: %s",
				   strerror(errno ? errno : ENOMEM));
	pw_registry_add_listener(l->registry, &l->registry_listener, &registry_events, l);
	return 0;
}

void llmem_pipewire_links_unwatch(struct pipewire_links *l)
{
	for (int i = 0; i < PIPEWIRE_LINKS_MAX; i++)
		if (l->links[i].owner)
			forget(&l->links[i]);
	if (l->registry) {
		spa_hook_remove(&l->registry_listener);
		pw_proxy_destroy((struct pw_proxy *)l->registry);
		l->registry = NULL;
	}
}
