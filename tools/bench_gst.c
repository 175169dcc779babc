// SPDX-License-Identifier: MIT
/*
 * llmem bench gst: GStreamer pipelines with llmem's elements against the
 * same pipelines with GStreamer's usual ones, in one run, each run of
 * gst-launch-1.0 timed whole (its start, the pipeline's set-up and its
 * exit are what a user pays):
 *
 *   display  v4l2src io-mode=dmabuf-import ! llmemconvert ! kmssink
 *            v4l2src io-mode=mmap ! videoconvert ! kmssink
 *   encode   v4l2src io-mode=dmabuf-import ! llmemconvert
 *                ! v4l2fwhtenc output-io-mode=dmabuf-import ! fakesink
 *            v4l2src io-mode=mmap ! videoconvert ! v4l2fwhtenc ! fakesink
 *   convert  frames ! llmemconvert ! fakesink
 *            frames ! videoconvert ! fakesink
 *
 * The last needs no camera and no display: it is the one a machine with a
 * GPU and nothing else can run.  Its source is llmem-gst-frames
 * (gst_frames.c), frames drawn once and pushed in turn, which costs nothing
 * per frame, or videotestsrc, which draws each (--source).  YUY2 captured
 * or drawn, converted to BGRx.  videoconvert runs twice, as it comes (one
 * thread) and with a thread per core; the source runs alone into fakesink,
 * so that its share is known.  The paths' order rotates from round to
 * round.  Where the Vulkan device is lavapipe, the device is the CPU: its
 * threads' time is given apart as the device's share.  The streaming
 * threads (GStreamer names a pad's task "element:pad") do the per-frame
 * work without the one-off set-up.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llmem/error.h>
#include <llmem/v4l2.h>

#include "commands.h"
#include "bench_gst.h"
#include "launch_usage.h"

enum pipeline {
	DISPLAY = 1,
	ENCODE = 2,
	CONVERT = 4,
	/* The pipelines that capture from a camera. */
	CAMERA = DISPLAY | ENCODE,
};

static const struct cli_choice pipeline_choices[] = {
	{ "display", DISPLAY }, { "encode", ENCODE },	     { "convert", CONVERT },
	{ "camera", CAMERA },	{ "all", CAMERA | CONVERT }, { 0 },
};

enum source {
	FRAMES,
	SMPTE
};

static const struct cli_choice source_choices[] = {
	{ "frames", FRAMES },
	{ "smpte", SMPTE },
	{ 0 },
};

static const char *const source_texts[] = {
	[FRAMES] = "llmem-gst-frames: 4 frames of the pool downstream proposes, drawn once and "
		   "pushed in turn, nothing per frame",
	[SMPTE] = "videotestsrc pattern=smpte: SMPTE bars drawn into every frame",
};

/* The frames llmem-gst-frames draws and pushes in turn. */
#define FRAME_BUFFERS 4

static struct {
	const char *device, *kms_driver;
	uint32_t size[2];
	uint64_t frames, rounds;
	uint32_t pipelines, source;
	bool json, quiet, source_given;
} args = {
	.size = { 640, 480 },
	.frames = 30,
	.rounds = 3,
	.pipelines = CAMERA,
};

static const struct cli_option options[] = {
	CLI_OPTION_DEVICE(&args.device, CLI_HELP_CAPTURE_DEVICE),
	CLI_OPTION_SIZE(args.size, 64, 4096, NULL, "frame size in pixels (default 640x480)"),
	{ .name = "frames",
	  .short_name = 'n',
	  .type = CLI_UINT,
	  .value = &args.frames,
	  .meta = "N",
	  .min = 2,
	  .max = 100000,
	  .help = "frames per run, at least 2: a run of one frame more tells the set-up "
		  "apart (default 30)" },
	CLI_OPTION_ROUNDS(
		&args.rounds, BENCH_GST_MAX_ROUNDS,
		"runs of each pipeline per path, the paths' order alternating (default 3)"),
	{ .name = "pipeline",
	  .short_name = 'p',
	  .type = CLI_CHOICE,
	  .value = &args.pipelines,
	  .meta = "NAME",
	  .choices = pipeline_choices,
	  .help = "which pipelines to run (default: the two that capture, camera)" },
	{ .name = "source",
	  .short_name = 'S',
	  .type = CLI_CHOICE,
	  .value = &args.source,
	  .meta = "NAME",
	  .choices = source_choices,
	  .given = &args.source_given,
	  .help = "the convert pipeline's source: frames drawn once and pushed in turn, "
		  "or videotestsrc's bars drawn into each (default frames)" },
	{ .name = "kms-driver",
	  .short_name = 'k',
	  .type = CLI_STRING,
	  .value = &args.kms_driver,
	  .meta = "NAME",
	  .help = "kmssink's driver-name (vkms in the test VM); default: kmssink's choice" },
	CLI_OPTION_JSON(&args.json),
	CLI_OPTION_QUIET(&args.quiet, "print nothing but the result"),
	{ 0 },
};

struct bench {
	char device[32];
	char tmp[PATH_MAX];
	char err_path[PATH_MAX + 16];
	/* llmem-gst-frames, where --source frames needs it. */
	char frames_program[512];
	unsigned int threads;
};

/* lavapipe's threads: llvmpipe-N, and the queue and compute threads it
 * leaves unnamed, which keep the process's name (the main thread has it
 * too, and only runs the program's main loop and the one-off set-up). */
static int is_device_thread(const struct launch_thread *t, const struct launch_usage *u)
{
	const char *process = NULL;

	if (t->tid == u->pid)
		return 0;
	for (unsigned int i = 0; i < u->threads; i++)
		if (u->thread[i].tid == u->pid)
			process = u->thread[i].name;
	return !strncmp(t->name, "llvmpipe", 8) || !strncmp(t->name, "lp:", 3) ||
	       !strncmp(t->name, "lvp", 3) || strstr(t->name, ":disk$") ||
	       (process && !strcmp(t->name, process));
}

/* GStreamer names a pad's task "element:pad"; videoconvert's n-threads
 * workers are GLib's pool threads ("pool-" and the program's name). */
static int is_streaming_thread(const struct launch_thread *t, const struct launch_usage *u)
{
	return !is_device_thread(t, u) && (strchr(t->name, ':') || !strncmp(t->name, "pool-", 5));
}

/* The folder the tool runs from, in @dir; FALSE where /proc cannot say. */
static bool tool_dir(char *dir, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return false;
	exe[n] = '\0';
	snprintf(dir, len, "%s", dirname(exe));
	return true;
}

/*
 * From the build tree, the plugin lies beside the tool's folder
 * (build/tools/llmem, build/gst/libgstllmem.so); installed, GStreamer finds
 * it in its own plugin folder.  A GST_PLUGIN_PATH the user set is kept.
 */
static void find_plugin(void)
{
	char tools[PATH_MAX], dir[PATH_MAX + 8], lib[PATH_MAX + 32];

	if (getenv("GST_PLUGIN_PATH") || !tool_dir(tools, sizeof(tools)))
		return;
	snprintf(dir, sizeof(dir), "%s/../gst", tools);
	snprintf(lib, sizeof(lib), "%s/libgstllmem.so", dir);
	if (!access(lib, R_OK))
		setenv("GST_PLUGIN_PATH", dir, 1);
}

/* llmem-gst-frames beside the tool (a build tree), else where it is
 * installed. */
static int find_frames_program(struct bench *b)
{
	char tools[PATH_MAX];

	if (tool_dir(tools, sizeof(tools))) {
		snprintf(b->frames_program, sizeof(b->frames_program), "%s/llmem-gst-frames",
			 tools);
		if (!access(b->frames_program, X_OK))
			return 0;
	}
	snprintf(b->frames_program, sizeof(b->frames_program), "%s/llmem-gst-frames",
		 LLMEM_LIBEXECDIR);
	if (!access(b->frames_program, X_OK))
		return 0;
	fprintf(stderr,
		"llmem bench gst: no llmem-gst-frames beside the tool or in %s (it is "
		"built with the plugin); --source smpte needs none\n",
		LLMEM_LIBEXECDIR);
	return -ENOENT;
}

static void print_stderr_tail(const char *path)
{
	char buf[2048];
	size_t n;
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	if (fseek(f, -(long)(sizeof(buf) - 1), SEEK_END))
		rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	fprintf(stderr, "%s%s", buf, n && buf[n - 1] != '\n' ? "\n" : "");
}

/* gst-launch-1.0 (and llmem-gst-frames) escape each of their arguments
 * as one word of the description: the command goes word by word. */
static int launch(struct bench *b, const char *command, struct launch_usage *u)
{
	char words[sizeof(((struct bench_gst_pipeline *)0)->launch[0][0])], *save = NULL;
	char *argv[128];
	int argc = 0, ret;

	snprintf(words, sizeof(words), "%s", command);
	for (char *w = strtok_r(words, " ", &save); w && argc < 127; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	ret = launch_measure(argv, b->err_path, u);

	if (ret == -ECHILD) {
		fprintf(stderr, "llmem bench gst: %s failed:\n", command);
		print_stderr_tail(b->err_path);
	} else if (ret) {
		fprintf(stderr, "llmem bench gst: %s: %s\n", argv[0], strerror(-ret));
	}
	return ret;
}

/* Scans the plugins once, outside the timed runs, into a registry of the
 * run's own, and finds llmem's. */
static int setup(struct bench *b)
{
	const char *tmpdir = getenv("TMPDIR");
	char registry[PATH_MAX + 16];
	char *argv[] = { "gst-inspect-1.0", "llmemconvert", NULL };
	struct launch_usage u;
	int ret;

	if (args.device)
		snprintf(b->device, sizeof(b->device), "%s", args.device);
	else if ((args.pipelines & CAMERA) &&
		 (ret = llmem_v4l2_find_capture(b->device, sizeof(b->device)))) {
		fprintf(stderr, "llmem bench gst: no camera (give one with --device): %s\n",
			llmem_last_error());
		return ret;
	}
	snprintf(b->tmp, sizeof(b->tmp), "%s/llmem-bench-gst-XXXXXX", tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(b->tmp)) {
		ret = -errno;
		fprintf(stderr, "llmem bench gst: %s: %s\n", b->tmp, strerror(errno));
		b->tmp[0] = '\0';
		return ret;
	}
	if ((args.pipelines & CONVERT) && args.source == FRAMES && (ret = find_frames_program(b)))
		return ret;
	snprintf(b->err_path, sizeof(b->err_path), "%s/stderr", b->tmp);
	snprintf(registry, sizeof(registry), "%s/registry.bin", b->tmp);
	setenv("GST_REGISTRY", registry, 1);
	find_plugin();
	ret = launch_measure(argv, b->err_path, &u);
	if (ret) {
		fprintf(stderr, "llmem bench gst: GStreamer does not find llmem's plugin "
				"(gst-inspect-1.0 llmemconvert; set GST_PLUGIN_PATH):\n");
		print_stderr_tail(b->err_path);
	}
	return ret;
}

/* What each path converts with; the source alone converts nothing. */
static void converter(const struct bench *b, int k, char *out, size_t len)
{
	if (k == LLMEM)
		snprintf(out, len, "llmemconvert");
	else if (k == USUAL_THREADS)
		snprintf(out, len, "videoconvert n-threads=%u", b->threads);
	else
		snprintf(out, len, "videoconvert");
}

static void describe(const struct bench *b, enum pipeline which, struct bench_gst_pipeline *r)
{
	static const char *const names[] = {
		[DISPLAY] = "display", [ENCODE] = "encode", [CONVERT] = "convert"
	};
	char caps[96], source[128], sink[256], convert[64], tail[512];

	snprintf(caps, sizeof(caps), "video/x-raw,format=YUY2,width=%u,height=%u", args.size[0],
		 args.size[1]);
	for (int k = 0; k < PATHS; k++) {
		if (which == DISPLAY)
			snprintf(sink, sizeof(sink), "kmssink force-modesetting=true%s%s",
				 args.kms_driver ? " driver-name=" : "",
				 args.kms_driver ? args.kms_driver : "");
		else if (which == ENCODE)
			snprintf(sink, sizeof(sink), "v4l2fwhtenc%s ! fakesink",
				 k == LLMEM ? " output-io-mode=dmabuf-import" : "");
		else
			snprintf(sink, sizeof(sink), "fakesink");
		converter(b, k, convert, sizeof(convert));
		if (k == SOURCE)
			snprintf(tail, sizeof(tail), "fakesink");
		else
			snprintf(tail, sizeof(tail), "%s ! video/x-raw,format=BGRx ! %s", convert,
				 sink);
		if (which == CONVERT)
			snprintf(source, sizeof(source), "videotestsrc pattern=smpte");
		else
			snprintf(source, sizeof(source), "v4l2src device=%s io-mode=%s", b->device,
				 k == LLMEM ? "dmabuf-import" : "mmap");
		for (int l = 0; l < LENGTHS; l++) {
			unsigned long long n = l == ONE ? 1ull : (unsigned long long)args.frames;

			if (which == CONVERT && args.source == FRAMES)
				snprintf(r->launch[k][l], sizeof(r->launch[k][l]),
					 "%s %llu %d %s %s", b->frames_program, n, FRAME_BUFFERS,
					 caps, tail);
			else
				snprintf(r->launch[k][l], sizeof(r->launch[k][l]),
					 "gst-launch-1.0 -q %s num-buffers=%llu ! %s ! %s", source,
					 n, caps, tail);
		}
	}
	r->name = names[which];
}

static void print_threads(const char *pipeline, const char *path, uint64_t round,
			  const struct launch_usage *u)
{
	if (args.quiet || args.json)
		return;
	fprintf(stderr, "# %s, round %llu, %s: threads' CPU s:", pipeline,
		(unsigned long long)round, path);
	for (unsigned int i = 0; i < u->threads; i++)
		fprintf(stderr, " %s%s %.2f", u->thread[i].tid == u->pid ? "main:" : "",
			u->thread[i].name, u->thread[i].cpu_s);
	fprintf(stderr, "\n");
}

/* One path's figures of one round: its runs of args.frames frames and of
 * one. */
static int run_path(struct bench *b, struct bench_gst_pipeline *r, int k, uint64_t round)
{
	double frames = (double)args.frames, host[LENGTHS], wall[LENGTHS];
	double *s = r->sample[k][0];
	struct launch_usage u;

	for (int l = 0; l < LENGTHS; l++) {
		double device;
		int ret = launch(b, r->launch[k][l], &u);

		if (ret)
			return ret;
		device = launch_threads_cpu(&u, is_device_thread, false);
		host[l] = u.cpu_s - device;
		wall[l] = u.wall_s;
		if (l == ONE)
			break;
		print_threads(r->name, bench_gst_path_keys[k], round, &u);
		s[FPS * BENCH_GST_MAX_ROUNDS + round] = frames / u.wall_s;
		s[CPU_MS * BENCH_GST_MAX_ROUNDS + round] = 1e3 * u.cpu_s / frames;
		s[DEVICE_MS * BENCH_GST_MAX_ROUNDS + round] = 1e3 * device / frames;
		s[HOST_MS * BENCH_GST_MAX_ROUNDS + round] = 1e3 * host[LONG] / frames;
		s[STREAM_MS * BENCH_GST_MAX_ROUNDS + round] =
			1e3 * launch_threads_cpu(&u, is_streaming_thread, false) / frames;
		s[STREAM_USER_MS * BENCH_GST_MAX_ROUNDS + round] =
			1e3 * launch_threads_cpu(&u, is_streaming_thread, true) / frames;
	}
	/* The rate a stream keeps once running: a pipeline's set-up (a Vulkan
	 * device, a thread pool) costs a run of a few hundred frames as much as
	 * the frames. */
	s[FPS_MARGINAL * BENCH_GST_MAX_ROUNDS + round] = (frames - 1) / (wall[LONG] - wall[ONE]);
	s[HOST_MARGINAL_MS * BENCH_GST_MAX_ROUNDS + round] =
		1e3 * (host[LONG] - host[ONE]) / (frames - 1);
	return 0;
}

static int run_pipeline(struct bench *b, enum pipeline which, struct bench_gst_pipeline *r)
{
	describe(b, which, r);
	for (uint64_t round = 0; round < args.rounds; round++) {
		for (int turn = 0; turn < PATHS; turn++) {
			int ret = run_path(b, r, (int)((round + (uint64_t)turn) % PATHS), round);

			if (ret)
				return ret;
		}
	}
	for (int k = 0; k < PATHS; k++)
		for (int f = 0; f < FIGURES; f++)
			r->stat[k][f] = stat3_of(r->sample[k][f], (uint32_t)args.rounds);
	return 0;
}

static void cleanup(struct bench *b)
{
	char registry[PATH_MAX + 16];

	if (!b->tmp[0])
		return;
	snprintf(registry, sizeof(registry), "%s/registry.bin", b->tmp);
	unlink(registry);
	unlink(b->err_path);
	rmdir(b->tmp);
}

static int run(const struct cli_command *cmd, int argc, char **argv)
{
	static struct bench_gst_pipeline result[3];
	struct bench b = { 0 };
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int count = 0, ret;
	struct bench_gst_report report;

	ret = cli_parse(cmd, argc, argv);
	if (ret <= 0)
		return -ret;
	b.threads = cores > 0 ? (unsigned int)cores : 1;
	if (args.source_given && !(args.pipelines & CONVERT))
		return cli_fail(
			cmd, CLI_USAGE,
			"--source: only the convert pipeline (--pipeline convert or all) has "
			"a source to choose");
	ret = setup(&b);
	for (enum pipeline p = DISPLAY; !ret && p <= CONVERT; p <<= 1)
		if (args.pipelines & p)
			ret = run_pipeline(&b, p, &result[count++]);
	report = (struct bench_gst_report){
		.camera = b.device[0] ? b.device : NULL,
		.source = source_choices[args.source].name,
		.source_text = source_texts[args.source],
		.threads = b.threads,
		.width = args.size[0],
		.height = args.size[1],
		.frames = args.frames,
		.rounds = args.rounds,
		.pipelines = result,
		.count = count,
	};
	if (!ret && args.json)
		bench_gst_print_json(&report);
	else if (!ret)
		bench_gst_print_text(&report);
	cleanup(&b);
	return ret ? CLI_FAILED : CLI_OK;
}

const struct cli_command cmd_bench_gst = {
	.name = "bench gst",
	.summary = "GStreamer pipelines with llmem's elements against the usual ones",
	.description =
		"Runs capture -> convert -> display (kmssink) and capture -> convert -> encode\n"
		"(v4l2fwhtenc) as gst-launch-1.0 pipelines: with llmem's elements, where\n"
		"v4l2src captures into llmem's frames (io-mode=dmabuf-import), llmemconvert\n"
		"converts YUY2 to BGRx on the GPU and kmssink or the encoder imports its\n"
		"frames; and with GStreamer's usual ones (v4l2src's MMAP buffers, videoconvert\n"
		"on the CPU, as it comes and with a thread per core).  --pipeline convert needs\n"
		"no camera and no display: frames converted and thrown away (fakesink), from a\n"
		"source that costs nothing per frame (llmem-gst-frames: frames drawn once,\n"
		"pushed in turn) or from videotestsrc (--source smpte).  The source also runs\n"
		"alone.  Each run is timed whole; prints frames per second and CPU time per\n"
		"frame of each path, the device's share apart where the Vulkan device is\n"
		"lavapipe, the streaming threads' share, and the ratios.  Finds the plugin\n"
		"beside the tool in a build tree, else where GStreamer looks\n"
		"(GST_PLUGIN_PATH).",
	.options = options,
	.run = run,
};
