// SPDX-License-Identifier: MIT
/*
 * A seeded fuzzer for /dev/llmem's uapi.  Four threads issue random calls:
 * ioctls with random numbers, sizes, directions, flags, pads, reserved and
 * trailing bytes and argument pointers (NULL, unmapped, straddling the end
 * of a mapping, kernel addresses) on /dev/llmem; mmap, munmap,
 * DMA_BUF_IOCTL_SYNC and DMA_BUF_SET_NAME on every fd; close, dup and dup2
 * racing across threads over a shared table of fds of every kind (/dev/llmem
 * files, llmem buffers and ranges, system-heap DMA-BUFs where the kernel has
 * the heap, vivid's VIDIOC_EXPBUF DMA-BUFs, pipes, eventfds, numbers already
 * closed); fork; and the per-process cap (max_bytes_per_process) set to
 * another value from time to time, so that allocations meet it while other
 * threads free.  Calls on the fds the threads never close are checked
 * against what docs/uapi.md promises (the dispatcher's errors exactly, the
 * command's errors as a set, a fresh buffer zeroed and of the rounded size).
 * Afterwards, every fd closed, no llmem page may be live (the count before
 * the run is printed, to tell a leak of an earlier test apart); unload-check
 * then unloads the module and the rig checks the kernel log.
 *
 * LLMEM_FUZZ_SEED (default: from the clock), LLMEM_FUZZ_CALLS (20000) and
 * LLMEM_FUZZ_THREADS (4) set the run; the seed is printed first and in every
 * failure.  Each thread draws from its own generator (seed + thread), so a
 * seed replays every thread's calls; the interleaving across threads is the
 * scheduler's: LLMEM_FUZZ_THREADS=1 replays a run exactly.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/videodev2.h>

#include "kselftest_harness.h"
#include "llmem_test.h"

#define SLOTS 64
#define KEEP 32
#define MAPS 32
#define PAGE 4096
#define MAX_THREADS 16

/* Fds no thread closes: calls on them have a predictable answer. */
static int keep_dev[2], keep_buf[2], keep_all[KEEP], nkeep;
/* The shared table the threads race over; -1 is empty. */
static _Atomic int slots[SLOTS];
static struct {
	void *addr;
	size_t len;
} maps[MAPS];
static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;
/*
 * Per thread, a page with no access, for arguments the kernel must not
 * read, after a writable one that arguments straddle into it: a thread's
 * own, so that no other thread rewrites an argument between its memcpy and
 * the ioctl the prediction was made for.
 */
static uint8_t *guards[MAX_THREADS];
static uint64_t seed;
static atomic_int failures;
static atomic_long calls_done;
/* What the run reached, printed at the end: a fuzzer that only hits errors tests little. */
static atomic_long n_ioctl_ok, n_ioctl_err, n_alloc_ok, n_mmap_ok, n_fork, n_caps;

struct rng {
	uint64_t s;
	int thread;
	long call;
};

static uint64_t next(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1DULL;
}

static uint64_t below(struct rng *r, uint64_t n)
{
	return n ? next(r) % n : 0;
}

static int chance(struct rng *r, int percent)
{
	return (int)below(r, 100) < percent;
}

#define fail(r, fmt, ...)                                                                        \
	do {                                                                                     \
		fprintf(stderr, "# FAIL seed=0x%" PRIx64 " thread=%d call=%ld: " fmt "\n", seed, \
			(r)->thread, (r)->call, ##__VA_ARGS__);                                  \
		atomic_fetch_add(&failures, 1);                                                  \
	} while (0)

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

/* Puts @fd in a random slot; the fd that was there is closed. */
static void slot_put(struct rng *r, int fd)
{
	int old;

	if (fd < 0)
		return;
	old = atomic_exchange(&slots[below(r, SLOTS)], fd);
	if (old >= 0)
		close(old);
}

/* Any fd: a slot's (maybe closed or reused since), or one of the kept ones. */
static int any_fd(struct rng *r)
{
	if (chance(r, 20))
		return keep_all[below(r, nkeep)];
	if (chance(r, 3))
		return (int)below(r, 1024);
	return atomic_load(&slots[below(r, SLOTS)]);
}

static uint64_t fuzz_size(struct rng *r)
{
	static const uint64_t edges[] = { 0,	     1,		 PAGE - 1,   PAGE,
					  PAGE + 1,  1ULL << 40, UINT64_MAX, UINT64_MAX - PAGE + 2,
					  5ULL << 20 };

	if (chance(r, 15))
		return edges[below(r, sizeof(edges) / sizeof(edges[0]))];
	if (chance(r, 3))
		return 1 + below(r, 4 << 20);
	return 1 + below(r, 64 << 10);
}

static uint32_t fuzz_flags(struct rng *r, uint32_t valid)
{
	if (chance(r, 10))
		return (uint32_t)next(r);
	if (chance(r, 10))
		return valid | 1U << below(r, 32);
	return (uint32_t)next(r) & valid;
}

static uint32_t fuzz_zero(struct rng *r)
{
	return chance(r, 8) ? (uint32_t)next(r) | 1 : 0;
}

static uint32_t fuzz_fd_field(struct rng *r)
{
	if (chance(r, 5))
		return (uint32_t)next(r);
	return (uint32_t)any_fd(r);
}

/* A fresh llmem buffer is of the rounded size and reads as zeros. */
static void check_fresh(struct rng *r, int fd, uint64_t asked, uint64_t got)
{
	off_t end = lseek(fd, 0, SEEK_END);
	uint8_t *p;
	size_t n = got < (64 << 10) ? got : PAGE;

	if (got < asked || got % PAGE || got - asked >= PAGE)
		fail(r, "ALLOC of %" PRIu64 " gave %" PRIu64 " bytes", asked, got);
	if (end != (off_t)got)
		fail(r, "ALLOC of %" PRIu64 " bytes: its fd seeks to %lld", got, (long long)end);
	p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		fail(r, "mmap of a fresh %" PRIu64 "-byte buffer: %s", got, strerror(errno));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		/*
		 * Another thread, or a child, may map the fresh fd by a number it
		 * took before it was reused (any_fd()) and store its 1 at the
		 * start of a page (fuzz_mmap()): the only bytes it writes.
		 */
		if (!p[i] || (p[i] == 1 && i % PAGE == 0))
			continue;
		fail(r, "a fresh %" PRIu64 "-byte buffer is not zeroed: byte %zu is 0x%02x", got, i,
		     p[i]);
		break;
	}
	memset(p, 0xa5, n);
	munmap(p, n);
}

static const unsigned int known_cmds[] = {
	LLMEM_IOC_ALLOC, LLMEM_IOC_INFO, LLMEM_IOC_TRACK, LLMEM_IOC_UNTRACK, LLMEM_IOC_EXPORT_RANGE,
};

/* The errno bit of @e in a set of allowed answers; bit 0 is success. */
#define E(e) (1ULL << (e))

/*
 * The command's own answer for a well-formed call, as a set: the dispatcher
 * has passed it on.  @arg holds what the module read.
 */
static uint64_t command_answers(unsigned int cmd, const void *arg)
{
	uint64_t any_fd_errors = E(EBADF) | E(EINVAL);

	switch (cmd) {
	case LLMEM_IOC_ALLOC: {
		const struct llmem_alloc *a = arg;

		if (a->flags & ~LLMEM_ALLOC_VALID_FLAGS || a->fd || !a->size ||
		    a->size > UINT64_MAX - PAGE + 1)
			return E(EINVAL);
		return 1 | E(ENOMEM) | E(E2BIG) | E(EMFILE) | E(EFAULT);
	}
	case LLMEM_IOC_INFO: {
		const struct llmem_info *i = arg;

		if (i->flags)
			return any_fd_errors;
		return 1 | any_fd_errors | E(EFAULT);
	}
	case LLMEM_IOC_TRACK:
	case LLMEM_IOC_UNTRACK: {
		const struct llmem_track *t = arg;

		if (t->flags)
			return any_fd_errors;
		return 1 | any_fd_errors | E(ENOENT) | E(ENOMEM);
	}
	case LLMEM_IOC_EXPORT_RANGE: {
		const struct llmem_export_range *x = arg;

		if (x->flags & ~LLMEM_EXPORT_RANGE_VALID_FLAGS || x->out_fd || x->pad)
			return any_fd_errors;
		return 1 | any_fd_errors | E(ENOMEM) | E(EMFILE) | E(EFAULT);
	}
	}
	return 0;
}

/* Fills the struct of @cmd at @arg (@len bytes) with mostly sensible fields. */
static void fill_arg(struct rng *r, unsigned int cmd, uint8_t *arg, size_t len)
{
	union {
		struct llmem_alloc alloc;
		struct llmem_info info;
		struct llmem_track track;
		struct llmem_export_range range;
	} u;
	static struct llmem_importer names[4];

	memset(&u, 0, sizeof(u));
	switch (cmd) {
	case LLMEM_IOC_ALLOC:
		u.alloc.size = fuzz_size(r);
		u.alloc.flags = fuzz_flags(r, LLMEM_ALLOC_VALID_FLAGS);
		u.alloc.fd = fuzz_zero(r);
		break;
	case LLMEM_IOC_INFO:
		u.info.fd = fuzz_fd_field(r);
		u.info.flags = fuzz_zero(r);
		if (chance(r, 50)) {
			u.info.importers_ptr =
				chance(r, 20) ? (uintptr_t)guards[r->thread] : (uintptr_t)names;
			u.info.importers_len = chance(r, 10) ? (uint32_t)next(r) : 4;
		}
		/* Out fields a caller left dirty are not read. */
		if (chance(r, 10))
			u.info.size = next(r);
		break;
	case LLMEM_IOC_TRACK:
	case LLMEM_IOC_UNTRACK:
		u.track.fd = fuzz_fd_field(r);
		u.track.flags = fuzz_zero(r);
		break;
	case LLMEM_IOC_EXPORT_RANGE:
		u.range.fd = fuzz_fd_field(r);
		u.range.flags = fuzz_flags(r, LLMEM_EXPORT_RANGE_VALID_FLAGS);
		u.range.offset = chance(r, 80) ? below(r, 16) * PAGE : next(r);
		u.range.size = chance(r, 80) ? below(r, 16) * PAGE : next(r);
		u.range.out_fd = fuzz_zero(r);
		u.range.pad = fuzz_zero(r);
		break;
	}
	memcpy(arg, &u, len < sizeof(u) ? len : sizeof(u));
	if (len > sizeof(u)) {
		memset(arg + sizeof(u), 0, len - sizeof(u));
		if (chance(r, 20))
			arg[sizeof(u) + below(r, len - sizeof(u))] = (uint8_t)(next(r) | 1);
	}
}

/*
 * What the module answers @cmd with, as a set: the dispatcher's checks
 * exactly, then the command's own.  The argument is @usize bytes, of which
 * the kernel can read the first @readable (the rest fault), with the
 * contents of @arg.  copy_struct_from_user() checks the bytes past the
 * struct it knows before it copies the struct, and stops at the first
 * non-zero one.
 */
static uint64_t predict(unsigned int cmd, size_t usize, const uint8_t *arg, size_t readable,
			size_t avail)
{
	uint8_t known[sizeof(struct llmem_info)] = { 0 };
	unsigned int base;
	size_t ksize, min;

	/* Other types may be the VFS's own commands (FIOCLEX, FIONREAD…). */
	if (_IOC_TYPE(cmd) != LLMEM_IOC_MAGIC)
		return E(ENOTTY) | E(EINVAL) | E(EFAULT) | 1;
	if (_IOC_NR(cmd) >= 5 || _IOC_DIR(cmd) != _IOC_DIR(known_cmds[_IOC_NR(cmd)]))
		return E(ENOTTY);
	base = known_cmds[_IOC_NR(cmd)];
	ksize = _IOC_SIZE(base);
	min = base == LLMEM_IOC_INFO ? LLMEM_INFO_SIZE_VER0 : ksize;
	if (usize < min)
		return E(EINVAL);
	if (usize > avail)
		return ~0ULL;
	if (usize > ksize) {
		size_t end = readable < usize ? readable : usize;

		for (size_t i = ksize; i < end; i++)
			if (arg[i])
				return E(EINVAL);
	}
	if (readable < usize)
		return E(EFAULT);
	memcpy(known, arg, usize < ksize ? usize : ksize);
	return command_answers(base, known);
}

/* One ioctl on a kept /dev/llmem file, its answer checked. */
static void fuzz_dev_ioctl(struct rng *r)
{
	uint8_t buf[512] __attribute__((aligned(8)));
	unsigned int base = known_cmds[below(r, 5)], cmd = base;
	size_t usize = _IOC_SIZE(base);
	int dev = keep_dev[below(r, 2)], where = (int)below(r, 100), ret, err;
	uint8_t *arg = buf;
	uint64_t allowed, asked;
	size_t readable;

	if (chance(r, 15)) {
		usize = below(r, 300);
		cmd = _IOC(_IOC_DIR(base), _IOC_TYPE(base), _IOC_NR(base), usize);
	} else if (chance(r, 8)) {
		cmd = _IOC(below(r, 4), chance(r, 50) ? 'L' : below(r, 256), below(r, 8),
			   below(r, 300));
		usize = _IOC_SIZE(cmd);
	} else if (chance(r, 3)) {
		cmd = (unsigned int)next(r);
		usize = _IOC_SIZE(cmd);
	}
	fill_arg(r, base, buf, usize < sizeof(buf) ? usize : sizeof(buf));

	/* Where the argument lies: the stack, NULL, no access, across into no access, the kernel. */
	if (where < 4) {
		arg = NULL;
	} else if (where < 8) {
		arg = guards[r->thread];
	} else if (where < 12 && usize > 1 && usize <= sizeof(buf)) {
		arg = guards[r->thread] - usize / 2;
		memcpy(arg, buf, usize / 2);
	} else if (where < 14) {
		arg = (uint8_t *)(uintptr_t)0xffffffff81000000ULL;
	}
	readable = arg == buf ? usize : arg == guards[r->thread] - usize / 2 ? usize / 2 : 0;
	allowed = predict(cmd, usize, buf, readable, sizeof(buf));
	asked = ((struct llmem_alloc *)buf)->size;

	ret = ioctl(dev, cmd, arg);
	err = ret < 0 ? errno : 0;
	atomic_fetch_add(ret ? &n_ioctl_err : &n_ioctl_ok, 1);
	if (ret > 0 || (ret == 0 && !(allowed & 1)) || (ret < 0 && !(allowed & E(err))))
		fail(r, "ioctl(dev, 0x%08x, %p) = %d (%s); size %zu", cmd, (void *)arg, ret,
		     ret ? strerror(err) : "success", usize);
	if (ret || arg != buf || _IOC_TYPE(cmd) != LLMEM_IOC_MAGIC)
		return;
	if (_IOC_NR(cmd) == _IOC_NR(LLMEM_IOC_ALLOC)) {
		struct llmem_alloc *a = (void *)buf;

		check_fresh(r, (int)a->fd, asked, a->size);
		slot_put(r, (int)a->fd);
	} else if (_IOC_NR(cmd) == _IOC_NR(LLMEM_IOC_EXPORT_RANGE)) {
		slot_put(r, (int)((struct llmem_export_range *)buf)->out_fd);
	}
}

/* A well-formed ALLOC: it succeeds (the sizes are small) and gives a zeroed buffer. */
static void fuzz_alloc(struct rng *r)
{
	struct llmem_alloc a = {
		.size = chance(r, 90) ? 1 + below(r, 64 << 10) : 1 + below(r, 1 << 20),
		.flags = LLMEM_ALLOC_CLOEXEC | (chance(r, 10) ? LLMEM_ALLOC_CONTIGUOUS : 0) |
			 (chance(r, 10) ? LLMEM_ALLOC_DYNAMIC : 0),
	};
	uint64_t asked = a.size;

	if (ioctl(keep_dev[below(r, 2)], LLMEM_IOC_ALLOC, &a)) {
		if (errno != EMFILE && errno != ENOMEM)
			fail(r, "ALLOC of %" PRIu64 " bytes: %s", asked, strerror(errno));
		return;
	}
	atomic_fetch_add(&n_alloc_ok, 1);
	check_fresh(r, (int)a.fd, asked, a.size);
	slot_put(r, (int)a.fd);
}

/* INFO on a kept llmem buffer reports it as llmem's. */
static void fuzz_info_kept(struct rng *r)
{
	struct llmem_info i = { 0 };
	int fd = keep_buf[below(r, 2)];

	i.fd = (uint32_t)fd;
	if (ioctl(keep_dev[below(r, 2)], LLMEM_IOC_INFO, &i)) {
		fail(r, "INFO on a kept buffer: %s", strerror(errno));
		return;
	}
	if (i.size != 64 << 10 || !(i.state & LLMEM_STATE_EXPORTED) ||
	    !memchr(i.exporter, 0, sizeof(i.exporter)) || !memchr(i.name, 0, sizeof(i.name)))
		fail(r, "INFO on a kept 64 KiB buffer: size %" PRIu64 " state 0x%x",
		     (uint64_t)i.size, i.state);
}

static void fuzz_mmap(struct rng *r, int in_child)
{
	size_t len = chance(r, 80) ? (1 + below(r, 16)) * PAGE : below(r, 8 << 20);
	off_t off = chance(r, 80) ? (off_t)below(r, 4) * PAGE : (off_t)next(r);
	int prot = chance(r, 70) ? PROT_READ | PROT_WRITE : PROT_READ;
	void *p = mmap(NULL, len, prot, chance(r, 90) ? MAP_SHARED : MAP_PRIVATE, any_fd(r), off);

	if (p == MAP_FAILED)
		return;
	atomic_fetch_add(&n_mmap_ok, 1);
	/* A mapping the kernel gave must be backed: a fault here is a finding. */
	(void)*(volatile uint8_t *)p;
	if (prot & PROT_WRITE)
		*(volatile uint8_t *)p = 1;
	if (in_child) {
		munmap(p, len);
		return;
	}
	pthread_mutex_lock(&maps_lock);
	for (int i = 0; i < MAPS; i++) {
		if (!maps[i].addr) {
			maps[i].addr = p;
			maps[i].len = len;
			p = NULL;
			break;
		}
	}
	pthread_mutex_unlock(&maps_lock);
	if (p)
		munmap(p, len);
}

static void fuzz_munmap(struct rng *r)
{
	int i = (int)below(r, MAPS);

	pthread_mutex_lock(&maps_lock);
	if (maps[i].addr) {
		munmap(maps[i].addr, maps[i].len);
		maps[i].addr = NULL;
	}
	pthread_mutex_unlock(&maps_lock);
}

static void fuzz_dmabuf_ioctl(struct rng *r)
{
	struct dma_buf_sync sync = { .flags = fuzz_flags(r, DMA_BUF_SYNC_VALID_FLAGS_MASK) };
	char name[48];
	int fd = any_fd(r);

	switch (below(r, 3)) {
	case 0:
		ioctl(fd, DMA_BUF_IOCTL_SYNC, chance(r, 5) ? (void *)guards[r->thread] : &sync);
		break;
	case 1:
		for (size_t i = 0; i < sizeof(name); i++)
			name[i] = (char)(' ' + below(r, 95));
		name[below(r, sizeof(name))] = 0;
		ioctl(fd, DMA_BUF_SET_NAME_B, chance(r, 5) ? (void *)guards[r->thread] : name);
		break;
	case 2: {
		/* llmem's commands on any fd, not only /dev/llmem. */
		uint8_t buf[sizeof(struct llmem_info)];
		unsigned int cmd = known_cmds[below(r, 5)];

		fill_arg(r, cmd, buf, _IOC_SIZE(cmd));
		if (ioctl(fd, cmd, buf) == 0 && cmd == LLMEM_IOC_ALLOC)
			slot_put(r, (int)((struct llmem_alloc *)buf)->fd);
		break;
	}
	}
}

static void fuzz_fds(struct rng *r)
{
	int fd, old, p[2];

	switch (below(r, 7)) {
	case 0:
		old = atomic_exchange(&slots[below(r, SLOTS)], -1);
		if (old >= 0)
			close(old);
		break;
	case 1:
		slot_put(r, fcntl(any_fd(r), F_DUPFD_CLOEXEC, 3));
		break;
	case 2:
		/* dup2 onto a number this thread took out of the table. */
		old = atomic_exchange(&slots[below(r, SLOTS)], -1);
		if (old < 0)
			break;
		fd = dup3(any_fd(r), old, O_CLOEXEC);
		slot_put(r, fd < 0 ? (close(old), -1) : fd);
		break;
	case 3:
		if (pipe2(p, O_CLOEXEC) == 0) {
			slot_put(r, p[0]);
			slot_put(r, p[1]);
		}
		break;
	case 4:
		slot_put(r, eventfd(0, EFD_CLOEXEC));
		break;
	case 5:
		slot_put(r, llmem_open());
		break;
	case 6:
		slot_put(r, fcntl(keep_all[below(r, nkeep)], F_DUPFD_CLOEXEC, 3));
		break;
	}
}

/* The per-process cap: none (0), a page, or up to 16 MiB. */
static void fuzz_cap(struct rng *r)
{
	static const uint64_t caps[] = { 0, PAGE, 64 << 10, 1 << 20, 16 << 20 };
	char value[32];

	snprintf(value, sizeof(value), "%" PRIu64, caps[below(r, 5)]);
	if (write_value(LLMEM_PER_PROCESS, value))
		fail(r, "%s = %s: refused", LLMEM_PER_PROCESS, value);
	atomic_fetch_add(&n_caps, 1);
}

static void fuzz_one(struct rng *r, int in_child);

/* A child does a few calls with what it inherited and exits. */
static void fuzz_fork(struct rng *r)
{
	int failed_before = atomic_load(&failures), status;
	pid_t pid = fork();

	if (pid < 0)
		return;
	atomic_fetch_add(&n_fork, 1);
	if (pid == 0) {
		for (int i = 0; i < 16; i++)
			fuzz_one(r, 1);
		_exit(atomic_load(&failures) > failed_before);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		fail(r, "forked child failed: status 0x%x", status);
}

static void fuzz_one(struct rng *r, int in_child)
{
	int op = (int)below(r, 100);

	if (op < 40)
		fuzz_dev_ioctl(r);
	else if (op < 47)
		fuzz_alloc(r);
	else if (op < 50)
		fuzz_info_kept(r);
	else if (op < 60)
		fuzz_mmap(r, in_child);
	else if (op < 66 && !in_child)
		fuzz_munmap(r);
	else if (op < 78)
		fuzz_dmabuf_ioctl(r);
	else if (op < 98 || in_child)
		fuzz_fds(r);
	else if (op < 99)
		fuzz_cap(r);
	else
		fuzz_fork(r);
}

struct worker {
	struct rng rng;
	long calls;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (w->rng.call = 0; w->rng.call < w->calls; w->rng.call++) {
		fuzz_one(&w->rng, 0);
		atomic_fetch_add(&calls_done, 1);
	}
	return NULL;
}

static void keep(int fd)
{
	if (fd >= 0 && nkeep < KEEP)
		keep_all[nkeep++] = fd;
}

/* vivid's capture buffers exported with VIDIOC_EXPBUF; the node's fd. */
static int keep_vivid_buffers(void)
{
	struct v4l2_requestbuffers req = {
		.count = 2,
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_MMAP,
	};
	size_t sizeimage;
	int video = open_vivid_capture();

	if (video < 0)
		return video;
	if (capture_set_yuyv(video, 640, 480, &sizeimage) || xioctl(video, VIDIOC_REQBUFS, &req))
		return -EIO;
	for (unsigned int i = 0; i < req.count; i++) {
		struct v4l2_exportbuffer e = {
			.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
			.index = i,
			.flags = O_RDWR | O_CLOEXEC,
		};

		if (xioctl(video, VIDIOC_EXPBUF, &e))
			return -EIO;
		keep(e.fd);
	}
	return video;
}

/* The kernel's system DMA heap: 6.12 has it built in, 6.1 has none. */
static int kernel_has_heap(void)
{
	struct utsname u;
	unsigned int major = 0, minor = 0;

	uname(&u);
	sscanf(u.release, "%u.%u", &major, &minor);
	return major > 6 || (major == 6 && minor >= 12);
}

static int keep_heap_buffers(void)
{
	int heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC), ret = 0;

	if (heap < 0)
		return -errno;
	for (int i = 0; i < 2; i++) {
		struct dma_heap_allocation_data d = { .len = 64 << 10,
						      .fd_flags = O_RDWR | O_CLOEXEC };

		if (xioctl(heap, DMA_HEAP_IOCTL_ALLOC, &d))
			break;
		keep((int)d.fd);
	}
	/*
	 * The heap itself stays out of reach: it picks its command by number
	 * alone, so llmem's ALLOC reads as a heap allocation of any size, which
	 * the system heap serves until the OOM killer comes.
	 */
	close(heap);
	return ret;
}

/* Closes every fd above stderr: the table's, the kept ones, whatever a race left. */
static void close_all(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	for (int i = 0; i < SLOTS; i++)
		atomic_store(&slots[i], -1);
	if (!d)
		return;
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);

		if (fd > 2 && fd != dirfd(d))
			close(fd);
	}
	closedir(d);
}

FIXTURE(fuzz){};
FIXTURE_SETUP(fuzz)
{
}
FIXTURE_TEARDOWN(fuzz)
{
}

/* make fuzz's million calls take about 20 minutes under TCG. */
TEST_F_TIMEOUT(fuzz, uapi, 7200)
{
	long calls = (long)env_u64("LLMEM_FUZZ_CALLS", 20000);
	int threads = (int)env_u64("LLMEM_FUZZ_THREADS", 4);
	struct worker w[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	long before, after;
	struct timespec t0, t1;
	char cap[32] = "";
	long cap_len;
	int video;

	seed = env_u64("LLMEM_FUZZ_SEED", (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32);
	if (!seed)
		seed = 1;
	ASSERT_GT(threads, 0);
	ASSERT_LE(threads, MAX_THREADS);
	fprintf(stderr, "# seed=0x%" PRIx64 " calls=%ld threads=%d (LLMEM_FUZZ_SEED replays it)\n",
		seed, calls, threads);
	before = llmem_live_pages();
	ASSERT_GE(before, 0) TH_LOG("seed=0x%" PRIx64 ": debugfs counter unreadable", seed);
	cap_len = read_file(LLMEM_PER_PROCESS, cap, sizeof(cap) - 1);
	ASSERT_GT(cap_len, 0) TH_LOG("%s unreadable", LLMEM_PER_PROCESS);

	for (int i = 0; i < threads; i++) {
		uint8_t *g = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		ASSERT_NE(g, MAP_FAILED);
		guards[i] = g + PAGE;
		ASSERT_EQ(mprotect(guards[i], PAGE, PROT_NONE), 0);
	}

	for (int i = 0; i < SLOTS; i++)
		atomic_store(&slots[i], -1);
	for (int i = 0; i < 2; i++) {
		keep_dev[i] = llmem_open();
		ASSERT_GE(keep_dev[i], 0);
		keep(keep_dev[i]);
		keep_buf[i] = llmem_alloc(keep_dev[i], 64 << 10);
		ASSERT_GE(keep_buf[i], 0);
		keep(keep_buf[i]);
	}
	video = keep_vivid_buffers();
	ASSERT_GE(video, 0)
	TH_LOG("seed=0x%" PRIx64 ": no vivid capture buffers to export: %s", seed,
	       strerror(-video));
	if (kernel_has_heap())
		ASSERT_EQ(keep_heap_buffers(), 0) TH_LOG("6.12 has a system heap");

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < threads; i++) {
		w[i].rng.s = seed + (uint64_t)i * 0x9E3779B97F4A7C15ULL;
		w[i].rng.thread = i;
		w[i].calls = calls / threads;
		ASSERT_EQ(pthread_create(&tid[i], NULL, worker_main, &w[i]), 0);
	}
	for (int i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	for (int i = 0; i < MAPS; i++)
		if (maps[i].addr)
			munmap(maps[i].addr, maps[i].len);
	close_all();
	EXPECT_EQ(write_value(LLMEM_PER_PROCESS, cap), 0);
	after = llmem_live_pages();
	fprintf(stderr,
		"# seed=0x%" PRIx64 ": %ld calls in %.1f s, %d failures, live pages %ld -> %ld\n",
		seed, atomic_load(&calls_done),
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
		atomic_load(&failures), before, after);
	fprintf(stderr,
		"# /dev/llmem ioctls %ld ok %ld failed, well-formed allocs %ld, mmaps %ld, forks "
		"%ld, per-process caps set %ld\n",
		atomic_load(&n_ioctl_ok), atomic_load(&n_ioctl_err), atomic_load(&n_alloc_ok),
		atomic_load(&n_mmap_ok), atomic_load(&n_fork), atomic_load(&n_caps));
	EXPECT_EQ(atomic_load(&failures), 0) TH_LOG("seed=0x%" PRIx64, seed);
	EXPECT_EQ(after, 0)
	TH_LOG("seed=0x%" PRIx64 ": pages still live (%ld before the run)", seed, before);
}

TEST_HARNESS_MAIN
