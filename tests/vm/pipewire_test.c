// SPDX-License-Identifier: MIT
/*
 * vivid's frames offered to PipeWire (llmem/pipewire.h), in the VM: a
 * PipeWire daemon of the test's own (its default configuration, a private
 * runtime directory, no session manager), the camera's node linked by
 * pw-link to tests/vm/pw_consumer in another process.  A consumer of
 * DMA-BUFs gets the very files the camera's frames are (the same inodes as
 * llmem_camera_export() gives, exported by llmem.ko), linear, and the
 * camera's picture in them, byte for byte what an MMAP capture of vivid's
 * static pattern holds; a consumer of shared memory only gets the same files
 * as MemFd; GStreamer's pipewiresrc hands them out as GstDmaBufMemory of the
 * same files; nothing is copied.  `llmem pipewire` does the same from its
 * own process; either side killed mid-stream leaves the other running and
 * nothing held.  The refusals come with their reasons.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <linux/videodev2.h>

#include <llmem/llmem.h>

#include "../module/llmem_test.h"
#include "capture.h"
#include "frame_line.h"
#include "kselftest_harness.h"
#include "test_util.h"
#include "vk_test.h"

#define WIDTH 640
#define HEIGHT 480
#define NBUFS 4
#define FRAMES 8
#define NODE "llmem-camera"
#define CONSUMER "llmem-test-consumer"

/* @argv started, its stdout on @out_fd and its stderr on @err_fd where
 * given: its pid, or -1. */
static pid_t spawn(char *const argv[], int out_fd, int err_fd)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (out_fd >= 0)
			dup2(out_fd, STDOUT_FILENO);
		if (err_fd >= 0)
			dup2(err_fd, STDERR_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

FIXTURE(pipewire)
{
	char runtime[128];
	pid_t daemon;
	struct llmem_session *s;
	struct llmem_camera *cam;
	struct llmem_camera_create_info ci;
	uint64_t picture;
	unsigned long inodes[NBUFS];
};

/* The daemon, with its socket up, and the camera, vivid's static pattern
 * captured once by MMAP for the picture's checksum. */
FIXTURE_SETUP(pipewire)
{
	char path[32], socket_path[160], log[160];
	struct llmem_v4l2_format vf;
	struct llmem_v4l2 *dev;
	uint8_t *frame;
	int fd;

	/* The guest's /tmp is the host's, read-only: TMPDIR is its own. */
	snprintf(self->runtime, sizeof(self->runtime), "%s/llmem-pw.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ASSERT_NE(mkdtemp(self->runtime), NULL);
	setenv("PIPEWIRE_RUNTIME_DIR", self->runtime, 1);
	setenv("XDG_RUNTIME_DIR", self->runtime, 1);
	setenv("XDG_CONFIG_HOME", self->runtime, 1);
	setenv("PIPEWIRE_LOG_SYSTEMD", "false", 1);
	setenv("PIPEWIRE_DEBUG", "2", 1);
	snprintf(log, sizeof(log), "%s/daemon.log", self->runtime);
	fd = open(log, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	ASSERT_GE(fd, 0);
	self->daemon = spawn((char *[]){ "pipewire", NULL }, fd, fd);
	close(fd);
	ASSERT_GT(self->daemon, 0);
	snprintf(socket_path, sizeof(socket_path), "%s/pipewire-0", self->runtime);
	for (int i = 0; i < 300 && access(socket_path, F_OK); i++)
		usleep(100 * 1000);
	ASSERT_EQ(access(socket_path, F_OK), 0) TH_LOG("no PipeWire socket (%s)", log);

	ASSERT_EQ(vivid_capture_path(0, path, sizeof(path)), 0);
	ASSERT_EQ(vivid_static_pattern(path), 0);
	ASSERT_EQ(llmem_v4l2_open(path, &dev), 0);
	ASSERT_EQ(llmem_v4l2_set_input(dev, 0), 0);
	ASSERT_EQ(llmem_v4l2_set_format(dev, V4L2_PIX_FMT_YUYV, WIDTH, HEIGHT, &vf), 0);
	ASSERT_EQ(capture_mmap_frame(dev, vf.sizeimage, NBUFS, &frame), 0);
	llmem_v4l2_close(dev);
	self->picture = frame_checksum(frame, vf.bytesperline, WIDTH * 2, HEIGHT);
	free(frame);

	VK_TEST_SESSION(self->s);
	self->ci = (struct llmem_camera_create_info){
		.device = strdup(path),
		.fourcc = V4L2_PIX_FMT_YUYV,
		.width = WIDTH,
		.height = HEIGHT,
		.buffers = NBUFS,
		.max_held = NBUFS,
		.flags = LLMEM_CAMERA_CONVERT_LATER | LLMEM_CAMERA_INPUT,
		.backend = LLMEM_BACKEND_LLMEM_DMABUF,
	};
	ASSERT_EQ(llmem_camera_open(self->s, &self->ci, &self->cam), 0)
	TH_LOG("%s", llmem_last_error());
	for (int i = 0; i < NBUFS; i++) {
		struct stat st;

		ASSERT_EQ(llmem_camera_export(self->cam, i, &fd), 0);
		ASSERT_EQ(fstat(fd, &st), 0);
		self->inodes[i] = st.st_ino;
		close(fd);
	}
}

FIXTURE_TEARDOWN(pipewire)
{
	char cmd[128];

	llmem_camera_close(self->cam);
	free((char *)self->ci.device);
	VK_TEST_SESSION_END(self->s);
	if (self->daemon > 0) {
		kill(self->daemon, SIGTERM);
		waitpid(self->daemon, NULL, 0);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->runtime);
	if (system(cmd))
		TH_LOG("could not remove %s", self->runtime);
}

/*
 * @src and a consumer of @kind ("dmabuf" or "memfd"), linked by pw-link
 * (run again until the consumer has a frame: with both nodes there but
 * their ports not yet, it links nothing and still exits 0), until the
 * consumer took FRAMES frames, or with @kill_after, until it took that many
 * and was killed: its lines in @lines (one a frame).  The source's loop
 * turns all the while: pw-link waits for the link, which waits for the
 * source's answers.  @info: the source's info while the consumer streamed.
 * With @src NULL the node is process @node's, and its end ends the wait.
 */
static void stream_to_keep(struct __test_metadata *_metadata, struct llmem_pipewire_source *src,
			   pid_t node, const char *kind, int kill_after, char lines[FRAMES][160],
			   int *count, struct llmem_pipewire_source_info *info, pid_t *keep)
{
	const char *consumer_path = getenv("LLMEM_PW_CONSUMER");
	char buf[8192], frames[8];
	size_t have = 0;
	int pipefd[2], status = -1, ret = 0;
	double start = now_s(), last_link = 0;
	pid_t consumer, link = 0;

	*count = 0;
	memset(info, 0, sizeof(*info));
	ASSERT_NE(consumer_path, NULL) TH_LOG("LLMEM_PW_CONSUMER names no pw_consumer");
	ASSERT_EQ(pipe2(pipefd, O_CLOEXEC | O_NONBLOCK), 0);
	snprintf(frames, sizeof(frames), "%d", kill_after ? 100000 : FRAMES);
	if (!strcmp(kind, "gstdmabuf"))
		consumer =
			spawn((char *[]){ getenv("LLMEM_GST_PW_CONSUMER"), CONSUMER, frames, NULL },
			      pipefd[1], -1);
	else
		consumer = spawn(
			(char *[]){ (char *)consumer_path, CONSUMER, (char *)kind, frames, NULL },
			pipefd[1], -1);
	close(pipefd[1]);
	while (consumer > 0 && now_s() - start < 90) {
		struct llmem_pipewire_source_info now;
		ssize_t n;

		/* A source in another process (llmem pipewire) turns its own loop. */
		ret = src ? llmem_pipewire_source_iterate(src, 50) : usleep(50 * 1000);
		if (ret)
			break;
		/* What it agreed, while the consumer streams. */
		if (src && !llmem_pipewire_source_get_info(src, &now) &&
		    now.state == LLMEM_PIPEWIRE_STREAMING)
			*info = now;
		if (link > 0 && waitpid(link, NULL, WNOHANG) == link)
			link = 0;
		if (!link && !have && now_s() - last_link > 2) {
			link = spawn((char *[]){ "pw-link", NODE, CONSUMER, NULL }, -1, -1);
			last_link = now_s();
		}
		n = read(pipefd[0], buf + have, sizeof(buf) - 1 - have);
		if (n > 0)
			have += (size_t)n;
		if (kill_after && memchr(buf, '\n', have)) {
			int lines_in = 0;

			for (size_t i = 0; i < have; i++)
				lines_in += buf[i] == '\n';
			if (lines_in >= kill_after)
				break;
		}
		if (waitpid(consumer, &status, WNOHANG) == consumer)
			consumer = 0;
		if (node > 0) {
			siginfo_t si = { 0 };

			/* Left for the caller to reap. */
			if (!waitid(P_PID, node, &si, WEXITED | WNOHANG | WNOWAIT) && si.si_pid)
				break;
		}
	}
	if (ret)
		TH_LOG("iterate: %s", llmem_last_error());
	TH_LOG("source: state %u, dmabuf %u, buffers %u, queued %" PRIu64 ", dropped %" PRIu64
	       ", error '%s'",
	       info->state, info->dmabuf, info->buffers, info->frames_queued, info->frames_dropped,
	       info->error);
	if (consumer > 0 && keep) {
		*keep = consumer;
		consumer = 0;
		status = 0;
	}
	if (consumer > 0) {
		kill(consumer, SIGKILL);
		waitpid(consumer, &status, 0);
		if (kill_after)
			status = 0;
	}
	if (link > 0) {
		kill(link, SIGKILL);
		waitpid(link, NULL, 0);
	}
	for (ssize_t n; (n = read(pipefd[0], buf + have, sizeof(buf) - 1 - have)) > 0;)
		have += (size_t)n;
	close(pipefd[0]);
	buf[have] = 0;
	for (char *line = strtok(buf, "\n"); line && *count < FRAMES; line = strtok(NULL, "\n"))
		snprintf(lines[(*count)++], 160, "%s", line);
	EXPECT_EQ(ret, 0);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
	{
		char cmd[256];

		TH_LOG("pw_consumer %s: status 0x%x; the end of the daemon's log:", kind, status);
		snprintf(cmd, sizeof(cmd), "tail -n 25 %s/daemon.log >&2",
			 getenv("PIPEWIRE_RUNTIME_DIR"));
		if (system(cmd))
			TH_LOG("no daemon log");
	}
}

static void stream_to(struct __test_metadata *_metadata, struct llmem_pipewire_source *src,
		      pid_t node, const char *kind, int kill_after, char lines[FRAMES][160],
		      int *count, struct llmem_pipewire_source_info *info)
{
	stream_to_keep(_metadata, src, node, kind, kill_after, lines, count, info, NULL);
}

static struct llmem_pipewire_source *source_of(struct __test_metadata *_metadata,
					       struct llmem_camera *cam)
{
	struct llmem_pipewire_source_create_info sci = { .name = NODE };
	struct llmem_pipewire_source *src = NULL;

	EXPECT_EQ(llmem_pipewire_source_create(cam, &sci, &src), 0)
	TH_LOG("%s", llmem_last_error());
	return src;
}

/* With @own_files, each frame in one of the fixture camera's files. */
static void check_frames(struct __test_metadata *_metadata, FIXTURE_DATA(pipewire) * self,
			 const char *kind, char lines[FRAMES][160], int count, bool own_files)
{
	int64_t last_seq = -1;

	ASSERT_EQ(count, FRAMES);
	for (int i = 0; i < count; i++) {
		char type[16], exp[64];
		unsigned long inode;
		unsigned int offset, size;
		int stride;
		uint64_t sum;
		int64_t seq;
		bool known = false;

		ASSERT_EQ(sscanf(lines[i], "frame %15s %lu %63s %u %d %u %" SCNx64 " %" SCNd64,
				 type, &inode, exp, &offset, &stride, &size, &sum, &seq),
			  8)
		TH_LOG("%s", lines[i]);
		/* Each frame once, in order: none sent twice, none going back. */
		EXPECT_GT(seq, last_seq)
		TH_LOG("frame %d: sequence %" PRId64 " after %" PRId64, i, seq, last_seq);
		last_seq = seq;
		EXPECT_STREQ(type, kind);
		for (int b = 0; b < NBUFS; b++)
			known |= self->inodes[b] == inode;
		EXPECT_TRUE(known || !own_files)
		TH_LOG("frame %d in inode %lu, none of the camera's", i, inode);
		EXPECT_STREQ(exp, "llmem");
		EXPECT_EQ(offset, 0);
		EXPECT_EQ(stride, WIDTH * 2);
		EXPECT_EQ(size, WIDTH * 2 * HEIGHT);
		EXPECT_EQ(sum, self->picture) TH_LOG("frame %d is not vivid's picture", i);
	}
}

TEST_F_TIMEOUT(pipewire, dmabuf_consumer_gets_the_cameras_files, 240)
{
	struct llmem_pipewire_source_info info;
	char lines[FRAMES][160];
	int count;

	struct llmem_pipewire_source *src = source_of(_metadata, self->cam);

	ASSERT_NE(src, NULL);
	stream_to(_metadata, src, 0, "dmabuf", 0, lines, &count, &info);
	llmem_pipewire_source_destroy(src);
	check_frames(_metadata, self, "dmabuf", lines, count, true);
	EXPECT_EQ(info.dmabuf, 1);
	EXPECT_EQ(info.state, LLMEM_PIPEWIRE_STREAMING);
	EXPECT_EQ(info.buffers, NBUFS);
	EXPECT_GE(info.frames_queued, FRAMES);
	EXPECT_EQ(info.bytes_copied, 0);
	EXPECT_NE(info.node_id, UINT32_MAX);
}

TEST_F_TIMEOUT(pipewire, memfd_consumer_gets_the_same_files, 240)
{
	struct llmem_pipewire_source_info info;
	char lines[FRAMES][160];
	int count;

	struct llmem_pipewire_source *src = source_of(_metadata, self->cam);

	ASSERT_NE(src, NULL);
	stream_to(_metadata, src, 0, "memfd", 0, lines, &count, &info);
	llmem_pipewire_source_destroy(src);
	check_frames(_metadata, self, "memfd", lines, count, true);
	EXPECT_EQ(info.dmabuf, 0);
	EXPECT_EQ(info.bytes_copied, 0);
}

/*
 * A consumer killed mid-stream: the node goes on, waiting, the camera
 * stopped with no frame held; the next consumer gets the camera's frames
 * again, and leaves no more fds open than the first; the node destroyed,
 * none is left of it.  (PipeWire keeps a link's buffers imported until
 * the next format: the fds between consumers are counted, not zero.)
 */
TEST_F_TIMEOUT(pipewire, consumer_killed_the_node_goes_on, 300)
{
	struct llmem_pipewire_source_info info;
	struct llmem_camera_frame f;
	char lines[FRAMES][160];
	int count, fds_before = count_open_fds(), fds_between;
	struct llmem_pipewire_source *src = source_of(_metadata, self->cam);

	ASSERT_NE(src, NULL);
	stream_to(_metadata, src, 0, "dmabuf", 3, lines, &count, &info);
	EXPECT_GE(count, 3);
	EXPECT_EQ(info.state, LLMEM_PIPEWIRE_STREAMING);
	for (double start = now_s(); now_s() - start < 3;)
		ASSERT_EQ(llmem_pipewire_source_iterate(src, 100), 0)
	TH_LOG("%s", llmem_last_error());
	ASSERT_EQ(llmem_pipewire_source_get_info(src, &info), 0);
	EXPECT_EQ(info.state, LLMEM_PIPEWIRE_WAITING);
	/* Stopped: it hands out nothing, and holds nothing. */
	EXPECT_EQ(llmem_camera_next(self->cam, 0, &f), -EBUSY);
	fds_between = count_open_fds();

	stream_to(_metadata, src, 0, "dmabuf", 3, lines, &count, &info);
	EXPECT_GE(count, 3);
	for (double start = now_s(); now_s() - start < 3;)
		ASSERT_EQ(llmem_pipewire_source_iterate(src, 100), 0)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(count_open_fds(), fds_between);

	stream_to(_metadata, src, 0, "dmabuf", 0, lines, &count, &info);
	check_frames(_metadata, self, "dmabuf", lines, count, true);
	llmem_pipewire_source_destroy(src);
	EXPECT_EQ(count_open_fds(), fds_before);
}

/*
 * GStreamer's pipewiresrc into an appsink: each buffer a GstDmaBufMemory
 * of one of the camera's files, vivid's picture read through its mapping.
 */
TEST_F_TIMEOUT(pipewire, gst_pipewiresrc_gets_the_cameras_files, 240)
{
	struct llmem_pipewire_source_info info;
	char lines[FRAMES][160];
	int count;
	struct llmem_pipewire_source *src = source_of(_metadata, self->cam);

	ASSERT_NE(src, NULL);
	stream_to(_metadata, src, 0, "gstdmabuf", 0, lines, &count, &info);
	llmem_pipewire_source_destroy(src);
	check_frames(_metadata, self, "gstdmabuf", lines, count, true);
	EXPECT_EQ(info.dmabuf, 1);
	EXPECT_EQ(info.bytes_copied, 0);
}

/*
 * A consumer of tiled DMA-BUFs only: the link finds no format in common and
 * fails.  The source says so, naming the link and the consumer's node
 * (PipeWire tells neither stream); the node goes on waiting, the camera
 * stopped; the consumer gets no frame and goes on running.
 */
TEST_F_TIMEOUT(pipewire, no_common_modifier_is_told, 120)
{
	struct llmem_pipewire_source_info info = { 0 };
	const char *consumer_path = getenv("LLMEM_PW_CONSUMER");
	struct llmem_pipewire_source *src = source_of(_metadata, self->cam);
	double start = now_s(), last_link = 0;
	struct llmem_camera_frame f;
	pid_t consumer, link = 0;
	int out[2], status = 0;
	char c, node[32];

	ASSERT_NE(src, NULL);
	ASSERT_NE(consumer_path, NULL);
	ASSERT_EQ(pipe2(out, O_CLOEXEC | O_NONBLOCK), 0);
	consumer = spawn((char *[]){ (char *)consumer_path, CONSUMER, "tiled", "1", NULL }, out[1],
			 -1);
	close(out[1]);
	ASSERT_GT(consumer, 0);
	while (now_s() - start < 60 && !info.links_failed) {
		ASSERT_EQ(llmem_pipewire_source_iterate(src, 50), 0)
		TH_LOG("%s", llmem_last_error());
		ASSERT_EQ(llmem_pipewire_source_get_info(src, &info), 0);
		if (link > 0 && waitpid(link, NULL, WNOHANG) == link)
			link = 0;
		if (!link && now_s() - last_link > 2) {
			link = spawn((char *[]){ "pw-link", NODE, CONSUMER, NULL }, -1, -1);
			last_link = now_s();
		}
	}
	if (link > 0) {
		kill(link, SIGKILL);
		waitpid(link, NULL, 0);
	}
	TH_LOG("link error: %s", info.link_error);
	EXPECT_GE(info.links_failed, 1);
	EXPECT_NE(info.failed_consumer, UINT32_MAX);
	EXPECT_NE(info.failed_consumer, info.node_id);
	snprintf(node, sizeof(node), "to node %u: ", info.failed_consumer);
	EXPECT_NE(strstr(info.link_error, node), NULL);
	EXPECT_TRUE(strstr(info.link_error, "no more input formats") ||
		    strstr(info.link_error, "before a format was agreed"));
	EXPECT_EQ(info.state, LLMEM_PIPEWIRE_WAITING);
	EXPECT_EQ(info.frames_queued, 0);
	EXPECT_EQ(llmem_camera_next(self->cam, 0, &f), -EBUSY);
	EXPECT_EQ(read(out[0], &c, 1), -1) TH_LOG("the consumer got a frame");
	EXPECT_EQ(waitpid(consumer, &status, WNOHANG), 0)
	TH_LOG("the consumer ended: 0x%x", status);
	kill(consumer, SIGKILL);
	waitpid(consumer, NULL, 0);
	close(out[0]);
	llmem_pipewire_source_destroy(src);
}

/* The camera's device and the node's JSON: llmem pipewire's output,
 * NUL-terminated, in @out.  Its pid, or -1. */
static pid_t spawn_cli(FIXTURE_DATA(pipewire) * self, const char *frames, int *out)
{
	const char *tool = getenv("LLMEM_TOOL");
	int pipefd[2];
	pid_t pid;

	if (!tool || pipe2(pipefd, O_CLOEXEC))
		return -1;
	pid = spawn((char *[]){ (char *)tool, "pipewire", "--device", (char *)self->ci.device,
				"--input", "0", "--size", "640x480", "--backend", "llmem-dmabuf",
				"--name", NODE, "--frames", (char *)frames, "--json", NULL },
		    pipefd[1], -1);
	close(pipefd[1]);
	*out = pipefd[0];
	return pid;
}

static void read_all(int fd, char *buf, size_t size)
{
	size_t have = 0;

	for (ssize_t n; have < size - 1 && (n = read(fd, buf + have, size - 1 - have)) > 0;)
		have += (size_t)n;
	buf[have] = 0;
	close(fd);
}

/* The number after @key in @json, or -1. */
static int64_t json_number(const char *json, const char *key)
{
	char quoted[64];
	const char *at;

	snprintf(quoted, sizeof(quoted), "\"%s\": ", key);
	at = strstr(json, quoted);
	return at ? strtoll(at + strlen(quoted), NULL, 10) : -1;
}

/*
 * `llmem pipewire`: its node streams vivid's picture to a consumer, as
 * DMA-BUFs, with nothing copied, until SIGINT; then it says what went and
 * exits 0.  With --frames, it ends by itself after that many.
 */
TEST_F_TIMEOUT(pipewire, cli_offers_the_camera, 240)
{
	struct llmem_pipewire_source_info info;
	char lines[FRAMES][160], json[4096];
	int count, out, status;
	pid_t cli;

	/* The device is the command's now. */
	llmem_camera_close(self->cam);
	self->cam = NULL;
	ASSERT_NE(getenv("LLMEM_TOOL"), NULL) TH_LOG("LLMEM_TOOL names no llmem");
	cli = spawn_cli(self, "4294967295", &out);
	ASSERT_GT(cli, 0);
	stream_to(_metadata, NULL, cli, "dmabuf", 0, lines, &count, &info);
	kill(cli, SIGINT);
	read_all(out, json, sizeof(json));
	ASSERT_EQ(waitpid(cli, &status, 0), cli);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
	TH_LOG("llmem pipewire: status 0x%x, %s", status, json);
	check_frames(_metadata, self, "dmabuf", lines, count, false);
	EXPECT_NE(strstr(json, "\"data_type\": \"DmaBuf\""), NULL) TH_LOG("%s", json);
	EXPECT_NE(strstr(json, "\"signalled\": true"), NULL) TH_LOG("%s", json);
	EXPECT_NE(strstr(json, "\"backend\": \"llmem-dmabuf\""), NULL) TH_LOG("%s", json);
	EXPECT_EQ(json_number(json, "consumers"), 1);
	EXPECT_EQ(json_number(json, "modifier"), 0);
	EXPECT_EQ(json_number(json, "bytes_copied"), 0);
	EXPECT_GE(json_number(json, "frames_queued"), FRAMES);
	EXPECT_EQ(json_number(json, "width"), WIDTH);

	cli = spawn_cli(self, "3", &out);
	ASSERT_GT(cli, 0);
	/* Until the command ends: the consumer is killed then. */
	stream_to(_metadata, NULL, cli, "dmabuf", FRAMES, lines, &count, &info);
	EXPECT_GE(count, 1);
	read_all(out, json, sizeof(json));
	ASSERT_EQ(waitpid(cli, &status, 0), cli);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
	TH_LOG("llmem pipewire --frames 3: status 0x%x, %s", status, json);
	EXPECT_EQ(json_number(json, "frames_queued"), 3) TH_LOG("%s", json);
	EXPECT_NE(strstr(json, "\"signalled\": false"), NULL) TH_LOG("%s", json);
}

/* @pid's fds that are DMA-BUFs. */
static int dmabuf_fds(pid_t pid)
{
	char dir[64], path[320], target[64];
	struct dirent *d;
	int n = 0;
	DIR *fds;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	fds = opendir(dir);
	if (!fds)
		return -1;
	while ((d = readdir(fds))) {
		ssize_t len;

		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len > 0) {
			target[len] = 0;
			n += !strcmp(target, "anon_inode:dmabuf") ||
			     !strncmp(target, "/dmabuf:", 8);
		}
	}
	closedir(fds);
	return n;
}

/*
 * The producer killed mid-stream (llmem pipewire, SIGKILL): the consumer
 * goes on running, lets go of every DMA-BUF of the node's, and llmem.ko's
 * pages are all freed.
 */
TEST_F_TIMEOUT(pipewire, producer_killed_the_consumer_goes_on, 240)
{
	struct llmem_pipewire_source_info info;
	char lines[FRAMES][160], json[64];
	int count, out, held = -1, status;
	pid_t cli, consumer = 0;
	long before;

	llmem_camera_close(self->cam);
	self->cam = NULL;
	before = llmem_live_pages();
	ASSERT_GE(before, 0) TH_LOG("llmem.ko's debugfs counter");
	cli = spawn_cli(self, "4294967295", &out);
	ASSERT_GT(cli, 0);
	stream_to_keep(_metadata, NULL, cli, "dmabuf", 3, lines, &count, &info, &consumer);
	ASSERT_GE(count, 3);
	ASSERT_GT(consumer, 0);
	EXPECT_GT(dmabuf_fds(consumer), 0);
	kill(cli, SIGKILL);
	ASSERT_EQ(waitpid(cli, &status, 0), cli);
	read_all(out, json, sizeof(json));
	for (int i = 0; i < 100 && (held = dmabuf_fds(consumer)) != 0; i++)
		usleep(100 * 1000);
	EXPECT_EQ(held, 0) TH_LOG("the consumer holds %d of the dead node's DMA-BUFs", held);
	EXPECT_EQ(waitpid(consumer, &status, WNOHANG), 0)
	TH_LOG("the consumer ended: 0x%x", status);
	EXPECT_EQ(llmem_live_pages_back_to(before), before) TH_LOG("llmem.ko pages still live");
	kill(consumer, SIGKILL);
	waitpid(consumer, NULL, 0);
}

TEST_F_TIMEOUT(pipewire, refusals, 120)
{
	struct llmem_pipewire_source_create_info sci = { .remote = "llmem-no-such-daemon" };
	struct llmem_camera_create_info ci = self->ci;
	struct llmem_pipewire_source *src = (void *)1;
	struct llmem_camera *other;

	EXPECT_EQ(llmem_pipewire_source_create(NULL, NULL, &src), -EINVAL);
	EXPECT_EQ(src, (void *)1);
	EXPECT_EQ(llmem_pipewire_source_create(self->cam, NULL, NULL), -EINVAL);
	EXPECT_LT(llmem_pipewire_source_create(self->cam, &sci, &src), 0);
	EXPECT_EQ(src, NULL);
	EXPECT_NE(strstr(llmem_last_error(), "llmem-no-such-daemon"), NULL)
	TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(llmem_pipewire_source_iterate(NULL, 0), -EINVAL);
	EXPECT_EQ(llmem_pipewire_source_fd(NULL), -EINVAL);
	llmem_pipewire_source_destroy(NULL);

	/* Frames that are converted as they come are not the node's to lend. */
	llmem_camera_close(self->cam);
	self->cam = NULL;
	ci.flags &= ~LLMEM_CAMERA_CONVERT_LATER;
	ASSERT_EQ(llmem_camera_open(self->s, &ci, &other), 0) TH_LOG("%s", llmem_last_error());
	EXPECT_EQ(llmem_pipewire_source_create(other, NULL, &src), -EINVAL);
	EXPECT_NE(strstr(llmem_last_error(), "CONVERT_LATER"), NULL)
	TH_LOG("%s", llmem_last_error());
	llmem_camera_close(other);
}

TEST_HARNESS_MAIN
