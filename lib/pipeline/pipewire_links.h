/* SPDX-License-Identifier: MIT */
/*
 * The links from a node's output, watched for the one way PipeWire tells of
 * a consumer it could not serve: a link that fails its negotiation (no
 * format in common: another modifier, size or pixel format) goes to its
 * ERROR state and is destroyed, and neither stream hears of it.  Only a
 * client bound to the link sees its error, so each link from the node is
 * bound as it appears; a link destroyed before its state said anything
 * (the bind lost the race) and before any format was agreed is taken for a
 * failed one too.
 */
#ifndef LLMEM_LIB_PIPEWIRE_LINKS_H
#define LLMEM_LIB_PIPEWIRE_LINKS_H

#include <stdbool.h>
#include <stdint.h>

#include <pipewire/pipewire.h>

#define PIPEWIRE_LINKS_MAX 8

struct pipewire_links;

struct pipewire_link {
	struct pipewire_links *owner;
	uint32_t id;
	uint32_t input_node;
	struct pw_proxy *proxy;
	struct spa_hook link_listener;
	struct spa_hook proxy_listener;
	/* The highest state its info said, PW_LINK_STATE_INIT before any. */
	int state;
	bool reported;
};

struct pipewire_links {
	struct pw_registry *registry;
	struct spa_hook registry_listener;
	/* The node whose output links are watched: UINT32_MAX until known. */
	const uint32_t *node_id;
	struct pipewire_link links[PIPEWIRE_LINKS_MAX];
	/* Links that failed, and why the last did. */
	uint32_t failed;
	uint32_t failed_consumer;
	char error[128];
};

/* Starts watching @core's links out of the node *@node_id.  Return: 0, or
 * a negative errno with llmem_error() set. */
int llmem_pipewire_links_watch(struct pipewire_links *links, struct pw_core *core,
			       const uint32_t *node_id);

/* Stops watching; a zeroed @links is fine. */
void llmem_pipewire_links_unwatch(struct pipewire_links *links);

#endif
