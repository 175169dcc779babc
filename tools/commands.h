/* SPDX-License-Identifier: MIT */
/*
 * The commands of `llmem`, one file each, each a table of options
 * (cli.h); llmem.c lists them.
 */
#ifndef LLMEM_TOOLS_COMMANDS_H
#define LLMEM_TOOLS_COMMANDS_H

#include "cli.h"

/* llmem info: the device as a session describes it (cmd_info.c). */
extern const struct cli_command cmd_info;
/* llmem devices: what llmem can allocate from or share with (cmd_devices.c). */
extern const struct cli_command cmd_devices;
/* llmem camera: the zero-copy capture pipeline (cmd_camera.c). */
extern const struct cli_command cmd_camera;
/* llmem encode: camera, device and encoder on the same pages (cmd_encode.c). */
extern const struct cli_command cmd_encode;
/* llmem decode: a bitstream decoded into llmem buffers (cmd_decode.c). */
extern const struct cli_command cmd_decode;
/* llmem negotiate: one layout every named device accepts (cmd_negotiate.c). */
extern const struct cli_command cmd_negotiate;
/* llmem display: the camera or a decoded stream shown on a KMS device
 * (cmd_display.c; its sources, writeback and hold display_*.c). */
extern const struct cli_command cmd_display;
/* llmem pipewire: a camera offered to PipeWire as a node (cmd_pipewire.c). */
extern const struct cli_command cmd_pipewire;

/* llmem bench NAME: each benchmark against its peer, one file each, its
 * parts beside it (bench_alloc_*.c, bench_transfer_paths.c). */
extern const struct cli_command cmd_bench_alloc;
extern const struct cli_command cmd_bench_kernel;
extern const struct cli_command cmd_bench_camera;
extern const struct cli_command cmd_bench_codec;
/* Built where libyuv is (LLMEM_TOOL_CONVERT). */
extern const struct cli_command cmd_bench_convert;
extern const struct cli_command cmd_bench_gst;
extern const struct cli_command cmd_bench_transfer;
/* Built where rdma-core's headers are (LLMEM_TOOL_RDMA). */
extern const struct cli_command cmd_bench_rdma;

#endif
