// SPDX-License-Identifier: MIT
/*
 * llmem buffers and ranges imported by tests/importer's module, the
 * importers the VMs otherwise lack: dynamic ones (move_notify) that map on
 * demand and pin, and static ones attached to a dynamic buffer, which the
 * kernel pins and maps at attach.  What INFO and debugfs show of each
 * attachment, mapping and pin, the CPU mappability that follows, every
 * refusal of the importer's test ioctls, and unloading llmem.ko and the
 * importer in either order.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <linux/dma-buf.h>

#include "kselftest_harness.h"
#include "llmem_test.h"
#include "../importer/llmem_test_importer.h"

#define PAGE 4096UL
#define IMPORTER_DEV "/dev/llmem_test_importer"
#define IMPORTER_NAME "llmem_test_importer"

static int importer_open(void)
{
	int fd = open(IMPORTER_DEV, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int imp_attach(int imp, int fd, uint32_t flags)
{
	struct llmem_ti_attach a = { .fd = (uint32_t)fd, .flags = flags };

	return xioctl(imp, LLMEM_TI_IOC_ATTACH, &a);
}

/* MAP in @dir; the bytes the mapping covers in *@size. */
static int imp_map(int imp, uint32_t dir, uint64_t *size)
{
	struct llmem_ti_map m = { .dir = dir };
	int ret = xioctl(imp, LLMEM_TI_IOC_MAP, &m);

	if (size)
		*size = m.size;
	return ret;
}

static int imp_cmd(int imp, unsigned long cmd)
{
	return xioctl(imp, cmd, NULL);
}

/* ALLOC of @size bytes with @flags (CLOEXEC added); the fd or -errno. */
static int alloc_flags(int dev, uint64_t size, uint32_t flags)
{
	struct llmem_alloc a = { .size = size, .flags = LLMEM_ALLOC_CLOEXEC | flags };
	int ret = xioctl(dev, LLMEM_IOC_ALLOC, &a);

	return ret < 0 ? ret : (int)a.fd;
}

/* EXPORT_RANGE with @flags (CLOEXEC added); the fd or -errno. */
static int range_flags(int dev, int fd, uint64_t offset, uint64_t size, uint32_t flags)
{
	struct llmem_export_range r = {
		.fd = (uint32_t)fd,
		.flags = LLMEM_EXPORT_RANGE_CLOEXEC | flags,
		.offset = offset,
		.size = size,
	};
	int ret = xioctl(dev, LLMEM_IOC_EXPORT_RANGE, &r);

	return ret < 0 ? ret : (int)r.out_fd;
}

/*
 * Whether the running kernel pins a dynamic buffer for every mapping of a
 * dynamic importer: it does without CONFIG_DMABUF_MOVE_NOTIFY.  1 or 0, or
 * -ENOENT when its config cannot be found.
 */
static int pins_on_map(void)
{
	char path[256], line[256];
	struct utsname u;
	int found = 0;
	FILE *f;

	uname(&u);
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	f = fopen(path, "re");
	if (!f) {
		snprintf(path, sizeof(path), "/lib/modules/%s/build/.config", u.release);
		f = fopen(path, "re");
	}
	if (!f)
		return -ENOENT;
	while (fgets(line, sizeof(line), f))
		found |= !strcmp(line, "CONFIG_DMABUF_MOVE_NOTIFY=y\n");
	fclose(f);
	return !found;
}

/* The dynamic, pins and pinned columns of debugfs's line for the buffer named @name. */
static int table_pins(const char *name, char *dynamic, unsigned int *pins, char *pinned,
		      char *importers)
{
	char line[512], last[128];
	FILE *f = fopen(LLMEM_BUFFERS, "re");
	int found = -ENOENT;

	if (!f)
		return -errno;
	while (found && fgets(line, sizeof(line), f)) {
		if (sscanf(line,
			   "llmem %*u %*s %*u %*s %*s %*s %*u %*u %*s %*s %7s %u %7s %127s %127s",
			   dynamic, pins, pinned, importers, last) == 5 &&
		    !strcmp(last, name))
			found = 0;
	}
	fclose(f);
	return found;
}

FIXTURE(importer)
{
	int dev;
	int imp;
	int pins_on_map;
};

FIXTURE_SETUP(importer)
{
	self->imp = importer_open();
	if (self->imp == -ENOENT)
		SKIP(return, "no " IMPORTER_DEV ": load tests/importer/build's module");
	ASSERT_GE(self->imp, 0) TH_LOG("open " IMPORTER_DEV ": %s", strerror(-self->imp));
	self->dev = llmem_open();
	ASSERT_GE(self->dev, 0) TH_LOG("open /dev/llmem: %s", strerror(-self->dev));
	self->pins_on_map = pins_on_map();
}

FIXTURE_TEARDOWN(importer)
{
	if (self->imp >= 0)
		close(self->imp);
	close(self->dev);
}

/* INFO on @fd into @info, with the first importer's name in @name. */
#define INFO(fd, info, name)                                                  \
	do {                                                                  \
		struct llmem_importer names_[1] = { 0 };                      \
		ASSERT_EQ(llmem_info(self->dev, fd, info, names_, 1), 0);     \
		memcpy(name, names_[0].dev_name, sizeof(names_[0].dev_name)); \
	} while (0)

/*
 * A static importer of a plain buffer maps when and how it asks: a TO_DEVICE
 * mapping leaves the buffer mappable, a FROM_DEVICE one does not; no pin is
 * possible, none is counted.
 */
TEST_F(importer, static_importer_maps_in_its_direction)
{
	struct llmem_info info;
	char name[LLMEM_NAME_LEN];
	uint64_t size;
	int fd = llmem_alloc(self->dev, 16 * PAGE);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(imp_attach(self->imp, fd, 0), 0);
	INFO(fd, &info, name);
	EXPECT_EQ(info.attachments, 1);
	EXPECT_STREQ(name, IMPORTER_NAME);
	EXPECT_EQ(info.device_maps, 0);
	EXPECT_EQ(info.pins, 0);
	EXPECT_TRUE(info.known & LLMEM_KNOWN_PINS);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_MAPPABLE);

	EXPECT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_PIN), -EINVAL);
	ASSERT_EQ(imp_map(self->imp, LLMEM_TI_DIR_TO_DEVICE, &size), 0);
	EXPECT_EQ(size, 16 * PAGE);
	INFO(fd, &info, name);
	EXPECT_EQ(info.device_maps, 1);
	EXPECT_EQ(info.device_write_maps, 0);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_MAPPABLE);

	ASSERT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_UNMAP), 0);
	ASSERT_EQ(imp_map(self->imp, LLMEM_TI_DIR_FROM_DEVICE, NULL), 0);
	INFO(fd, &info, name);
	EXPECT_EQ(info.device_write_maps, 1);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED);

	ASSERT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_DETACH), 0);
	INFO(fd, &info, name);
	EXPECT_EQ(info.attachments, 0);
	EXPECT_EQ(info.device_maps, 0);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_MAPPABLE);
	close(fd);
}

/*
 * A dynamic importer of a dynamic buffer: a pin shows as a pin and leaves
 * the buffer mappable (the pages never move); mappings come and go in the
 * direction asked, and the kernel's own pin for a mapping (without
 * CONFIG_DMABUF_MOVE_NOTIFY) is counted on the same attachment.
 */
TEST_F(importer, dynamic_importer_pins_and_maps)
{
	struct llmem_info info;
	char name[LLMEM_NAME_LEN];
	uint64_t size;
	int fd = alloc_flags(self->dev, 8 * PAGE, LLMEM_ALLOC_DYNAMIC);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(imp_attach(self->imp, fd, LLMEM_TI_ATTACH_DYNAMIC), 0);
	INFO(fd, &info, name);
	EXPECT_EQ(info.attachments, 1);
	EXPECT_STREQ(name, IMPORTER_NAME);
	EXPECT_EQ(info.device_maps, 0);
	EXPECT_EQ(info.pins, 0);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_DYNAMIC | LLMEM_STATE_MAPPABLE);

	if (self->pins_on_map < 0) {
		TH_LOG("no kernel config found: the kernel's pin per mapping goes unchecked");
	} else {
		ASSERT_EQ(imp_map(self->imp, LLMEM_TI_DIR_TO_DEVICE, NULL), 0);
		INFO(fd, &info, name);
		EXPECT_EQ(info.pins, (unsigned int)self->pins_on_map);
		EXPECT_EQ(!!(info.state & LLMEM_STATE_PINNED), self->pins_on_map);
		ASSERT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_UNMAP), 0);
	}

	ASSERT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_PIN), 0);
	INFO(fd, &info, name);
	EXPECT_EQ(info.pins, 1);
	EXPECT_EQ(info.device_maps, 0);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_DYNAMIC | LLMEM_STATE_MAPPABLE |
				      LLMEM_STATE_PINNED);

	ASSERT_EQ(imp_map(self->imp, LLMEM_TI_DIR_TO_DEVICE, &size), 0);
	EXPECT_EQ(size, 8 * PAGE);
	INFO(fd, &info, name);
	EXPECT_EQ(info.pins, 1);
	EXPECT_EQ(info.device_maps, 1);
	EXPECT_EQ(info.device_write_maps, 0);
	EXPECT_TRUE(info.state & LLMEM_STATE_MAPPABLE);
	ASSERT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_UNMAP), 0);

	ASSERT_EQ(imp_map(self->imp, LLMEM_TI_DIR_BIDIRECTIONAL, NULL), 0);
	INFO(fd, &info, name);
	EXPECT_EQ(info.device_write_maps, 1);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_DYNAMIC | LLMEM_STATE_PINNED);
	ASSERT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_UNMAP), 0);

	ASSERT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_UNPIN), 0);
	INFO(fd, &info, name);
	EXPECT_EQ(info.pins, 0);
	EXPECT_EQ(info.device_maps, 0);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_DYNAMIC | LLMEM_STATE_MAPPABLE);
	ASSERT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_DETACH), 0);
	close(fd);
}

/*
 * A static importer of a dynamic buffer is pinned and mapped by the kernel at
 * attach, bidirectionally, until it detaches: the tracker says so (a write
 * mapping, a pin, not mappable), and the importer's own MAP gets that mapping
 * without a second one.
 */
TEST_F(importer, static_importer_of_dynamic_buffer_is_mapped_at_attach)
{
	struct llmem_info info;
	char name[LLMEM_NAME_LEN];
	uint64_t size;
	int fd = alloc_flags(self->dev, 4 * PAGE, LLMEM_ALLOC_DYNAMIC);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(imp_attach(self->imp, fd, 0), 0);
	INFO(fd, &info, name);
	EXPECT_EQ(info.attachments, 1);
	EXPECT_EQ(info.device_maps, 1);
	EXPECT_EQ(info.device_write_maps, 1);
	EXPECT_EQ(info.pins, 1);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_DYNAMIC | LLMEM_STATE_PINNED);

	ASSERT_EQ(imp_map(self->imp, LLMEM_TI_DIR_TO_DEVICE, &size), 0);
	EXPECT_EQ(size, 4 * PAGE);
	INFO(fd, &info, name);
	EXPECT_EQ(info.device_maps, 1);
	ASSERT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_UNMAP), 0);
	INFO(fd, &info, name);
	EXPECT_EQ(info.device_maps, 1);

	ASSERT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_DETACH), 0);
	INFO(fd, &info, name);
	EXPECT_EQ(info.attachments, 0);
	EXPECT_EQ(info.device_maps, 0);
	EXPECT_EQ(info.pins, 0);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_DYNAMIC | LLMEM_STATE_MAPPABLE);
	close(fd);
}

/*
 * A dynamic importer of a plain (static) buffer is mapped by the kernel at
 * attach, bidirectionally; its pin succeeds without reaching llmem, which
 * has no pin for such a buffer, and so shows nowhere.
 */
TEST_F(importer, dynamic_importer_of_static_buffer_is_mapped_at_attach)
{
	struct llmem_info info;
	char name[LLMEM_NAME_LEN];
	int fd = llmem_alloc(self->dev, 4 * PAGE);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(imp_attach(self->imp, fd, LLMEM_TI_ATTACH_DYNAMIC), 0);
	INFO(fd, &info, name);
	EXPECT_EQ(info.device_maps, 1);
	EXPECT_EQ(info.device_write_maps, 1);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED);
	ASSERT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_PIN), 0);
	INFO(fd, &info, name);
	EXPECT_EQ(info.pins, 0);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED);
	ASSERT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_UNPIN), 0);
	ASSERT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_DETACH), 0);
	INFO(fd, &info, name);
	EXPECT_EQ(info.device_maps, 0);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_MAPPABLE);
	close(fd);
}

/*
 * A dynamic range pinned and write-mapped by the importer: the range counts
 * the pin and the mapping; the parent and an overlapping range see the
 * pinned, written pages through their own fds (pinned, not mappable, no pin
 * of their own); a disjoint range sees neither.  The mapping covers the
 * range alone.
 */
TEST_F(importer, pinned_range_shows_through_the_pages)
{
	int parent = llmem_alloc(self->dev, 8 * PAGE);
	struct llmem_info info;
	char name[LLMEM_NAME_LEN];
	int range, overlap, disjoint;
	uint64_t size;

	ASSERT_GE(parent, 0);
	range = range_flags(self->dev, parent, 2 * PAGE, 2 * PAGE, LLMEM_EXPORT_RANGE_DYNAMIC);
	overlap = range_flags(self->dev, parent, 3 * PAGE, 2 * PAGE, 0);
	disjoint = range_flags(self->dev, parent, 6 * PAGE, 2 * PAGE, 0);
	ASSERT_GE(range, 0);
	ASSERT_GE(overlap, 0);
	ASSERT_GE(disjoint, 0);
	INFO(range, &info, name);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_DYNAMIC | LLMEM_STATE_MAPPABLE);
	INFO(overlap, &info, name);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_MAPPABLE);

	ASSERT_EQ(imp_attach(self->imp, range, LLMEM_TI_ATTACH_DYNAMIC), 0);
	ASSERT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_PIN), 0);
	ASSERT_EQ(imp_map(self->imp, LLMEM_TI_DIR_FROM_DEVICE, &size), 0);
	EXPECT_EQ(size, 2 * PAGE);

	INFO(range, &info, name);
	EXPECT_EQ(info.attachments, 1);
	EXPECT_STREQ(name, IMPORTER_NAME);
	EXPECT_EQ(info.pins, 1);
	EXPECT_EQ(info.device_write_maps, 1);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_DYNAMIC | LLMEM_STATE_PINNED);
	INFO(parent, &info, name);
	EXPECT_EQ(info.attachments, 0);
	EXPECT_EQ(info.pins, 0);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_PINNED);
	INFO(overlap, &info, name);
	EXPECT_EQ(info.pins, 0);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_PINNED);
	INFO(disjoint, &info, name);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_MAPPABLE);

	/* Unpinned but still written: no longer pinned, still not mappable. */
	ASSERT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_UNPIN), 0);
	INFO(parent, &info, name);
	if (self->pins_on_map >= 0)
		EXPECT_EQ(!!(info.state & LLMEM_STATE_PINNED), self->pins_on_map);
	EXPECT_FALSE(info.state & LLMEM_STATE_MAPPABLE);

	ASSERT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_DETACH), 0);
	INFO(parent, &info, name);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_MAPPABLE);
	INFO(range, &info, name);
	EXPECT_EQ(info.pins, 0);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_DYNAMIC | LLMEM_STATE_MAPPABLE);
	close(disjoint);
	close(overlap);
	close(range);
	close(parent);
}

/*
 * A plain range of a dynamic buffer is not dynamic: dynamic is each
 * DMA-BUF's own, and a static importer maps the range in its direction.
 */
TEST_F(importer, static_range_of_dynamic_buffer)
{
	int parent = alloc_flags(self->dev, 8 * PAGE, LLMEM_ALLOC_DYNAMIC);
	struct llmem_info info;
	char name[LLMEM_NAME_LEN];
	uint64_t size;
	int range;

	ASSERT_GE(parent, 0);
	range = range_flags(self->dev, parent, 4 * PAGE, 3 * PAGE, 0);
	ASSERT_GE(range, 0);
	INFO(range, &info, name);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_MAPPABLE);
	ASSERT_EQ(imp_attach(self->imp, range, 0), 0);
	INFO(range, &info, name);
	EXPECT_EQ(info.device_maps, 0);
	ASSERT_EQ(imp_map(self->imp, LLMEM_TI_DIR_TO_DEVICE, &size), 0);
	EXPECT_EQ(size, 3 * PAGE);
	INFO(parent, &info, name);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_DYNAMIC | LLMEM_STATE_MAPPABLE);
	close(range);
	close(parent);
}

/* debugfs's table shows a dynamic buffer, its pins and the importer's name. */
TEST_F(importer, debugfs_shows_the_pin)
{
	const char *label = "llmem-importer-pin";
	char dynamic[8], pinned[8], importers[128];
	unsigned int pins;
	int fd = alloc_flags(self->dev, PAGE, LLMEM_ALLOC_DYNAMIC);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(ioctl(fd, DMA_BUF_SET_NAME_B, label), 0);
	ASSERT_EQ(table_pins(label, dynamic, &pins, pinned, importers), 0);
	EXPECT_STREQ(dynamic, "yes");
	EXPECT_EQ(pins, 0);
	EXPECT_STREQ(pinned, "no");
	EXPECT_STREQ(importers, "-");

	ASSERT_EQ(imp_attach(self->imp, fd, LLMEM_TI_ATTACH_DYNAMIC), 0);
	ASSERT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_PIN), 0);
	ASSERT_EQ(table_pins(label, dynamic, &pins, pinned, importers), 0);
	EXPECT_EQ(pins, 1);
	EXPECT_STREQ(pinned, "yes");
	EXPECT_STREQ(importers, IMPORTER_NAME);
	close(self->imp);
	self->imp = -1;
	ASSERT_EQ(table_pins(label, dynamic, &pins, pinned, importers), 0);
	EXPECT_EQ(pins, 0);
	EXPECT_STREQ(pinned, "no");
	EXPECT_STREQ(importers, "-");
	close(fd);
}

/* Closing the importer's file unmaps, unpins and detaches what it held. */
TEST_F(importer, close_releases_everything)
{
	struct llmem_info info;
	char name[LLMEM_NAME_LEN];
	int fd = alloc_flags(self->dev, 2 * PAGE, LLMEM_ALLOC_DYNAMIC);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(imp_attach(self->imp, fd, LLMEM_TI_ATTACH_DYNAMIC), 0);
	ASSERT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_PIN), 0);
	ASSERT_EQ(imp_map(self->imp, LLMEM_TI_DIR_FROM_DEVICE, NULL), 0);
	close(self->imp);
	self->imp = -1;
	INFO(fd, &info, name);
	EXPECT_EQ(info.attachments, 0);
	EXPECT_EQ(info.device_maps, 0);
	EXPECT_EQ(info.pins, 0);
	EXPECT_EQ(info.state, LLMEM_STATE_EXPORTED | LLMEM_STATE_DYNAMIC | LLMEM_STATE_MAPPABLE);
	close(fd);
}

/* Every refusal of the importer's ioctls, each with its documented error. */
TEST_F(importer, refusals)
{
	struct llmem_ti_map m = { .dir = LLMEM_TI_DIR_TO_DEVICE };
	int fd = alloc_flags(self->dev, PAGE, LLMEM_ALLOC_DYNAMIC);
	int memfd = memfd_create("not-a-dmabuf", MFD_CLOEXEC);

	ASSERT_GE(fd, 0);
	ASSERT_GE(memfd, 0);
	/* Without an attachment. */
	EXPECT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_PIN), -ENOENT);
	EXPECT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_UNPIN), -ENOENT);
	EXPECT_EQ(imp_map(self->imp, LLMEM_TI_DIR_TO_DEVICE, NULL), -ENOENT);
	EXPECT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_UNMAP), -ENOENT);
	EXPECT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_DETACH), -ENOENT);
	/* Bad ATTACH arguments. */
	EXPECT_EQ(imp_attach(self->imp, fd, 1U << 1), -EINVAL);
	EXPECT_EQ(imp_attach(self->imp, fd, 1U << 31), -EINVAL);
	EXPECT_EQ(imp_attach(self->imp, -1, 0), -EBADF);
	EXPECT_EQ(imp_attach(self->imp, memfd, 0), -EINVAL);
	EXPECT_EQ(imp_attach(self->imp, self->dev, 0), -EINVAL);
	EXPECT_EQ(xioctl(self->imp, LLMEM_TI_IOC_ATTACH, (void *)8), -EFAULT);
	EXPECT_EQ(xioctl(self->imp, _IO(LLMEM_TI_IOC_MAGIC, 0x6), NULL), -ENOTTY);
	EXPECT_EQ(xioctl(self->imp, LLMEM_IOC_INFO, NULL), -ENOTTY);

	ASSERT_EQ(imp_attach(self->imp, fd, LLMEM_TI_ATTACH_DYNAMIC), 0);
	EXPECT_EQ(imp_attach(self->imp, fd, LLMEM_TI_ATTACH_DYNAMIC), -EBUSY);
	EXPECT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_UNPIN), -EINVAL);
	EXPECT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_UNMAP), -EINVAL);
	/* Bad MAP arguments. */
	EXPECT_EQ(imp_map(self->imp, 0, NULL), -EINVAL);
	EXPECT_EQ(imp_map(self->imp, LLMEM_TI_DIR_FROM_DEVICE + 1, NULL), -EINVAL);
	EXPECT_EQ(imp_map(self->imp, 1U << 31, NULL), -EINVAL);
	m.flags = 1;
	EXPECT_EQ(xioctl(self->imp, LLMEM_TI_IOC_MAP, &m), -EINVAL);
	m.flags = 0;
	m.size = 1;
	EXPECT_EQ(xioctl(self->imp, LLMEM_TI_IOC_MAP, &m), -EINVAL);
	EXPECT_EQ(xioctl(self->imp, LLMEM_TI_IOC_MAP, (void *)8), -EFAULT);
	/* Twice. */
	ASSERT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_PIN), 0);
	EXPECT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_PIN), -EBUSY);
	ASSERT_EQ(imp_map(self->imp, LLMEM_TI_DIR_TO_DEVICE, NULL), 0);
	EXPECT_EQ(imp_map(self->imp, LLMEM_TI_DIR_TO_DEVICE, NULL), -EBUSY);
	ASSERT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_DETACH), 0);
	EXPECT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_DETACH), -ENOENT);

	/* A static attachment cannot be pinned. */
	ASSERT_EQ(imp_attach(self->imp, fd, 0), 0);
	EXPECT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_PIN), -EINVAL);
	ASSERT_EQ(imp_cmd(self->imp, LLMEM_TI_IOC_DETACH), 0);
	close(memfd);
	close(fd);
}

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/*
 * The importer holding a buffer, its fds closed: llmem.ko and the importer
 * both refuse to unload (-EWOULDBLOCK: the kernel's answer for a module in
 * use) and stay whole; once the importer's file is closed both unload, in
 * either order, and load again as the rig loaded them.
 */
TEST(unload_in_either_order)
{
	char llmem_ko[1024], importer_ko[1024];

	if (!exists(IMPORTER_DEV))
		SKIP(return, "no " IMPORTER_DEV ": load tests/importer/build's module");
	if (module_entry("llmem.ko", llmem_ko, sizeof(llmem_ko)) ||
	    module_entry("llmem_test_importer.ko", importer_ko, sizeof(importer_ko)))
		SKIP(return,
			   "LLMEM_VM_MODULES does not name both .ko files (tests/vm/run sets it)");

	for (int order = 0; order < 2; order++) {
		int dev = llmem_open(), imp = importer_open(), fd;

		ASSERT_GE(dev, 0);
		ASSERT_GE(imp, 0);
		fd = alloc_flags(dev, 4 * PAGE, order ? LLMEM_ALLOC_DYNAMIC : 0);
		ASSERT_GE(fd, 0);
		ASSERT_EQ(imp_attach(imp, fd, order ? LLMEM_TI_ATTACH_DYNAMIC : 0), 0);
		ASSERT_EQ(imp_map(imp, LLMEM_TI_DIR_FROM_DEVICE, NULL), 0);
		if (order)
			ASSERT_EQ(imp_cmd(imp, LLMEM_TI_IOC_PIN), 0);
		close(fd);
		close(dev);

		EXPECT_EQ(delete_module("llmem"), -EWOULDBLOCK);
		EXPECT_TRUE(exists(LLMEM_DEV));
		EXPECT_EQ(delete_module("llmem_test_importer"), -EWOULDBLOCK);
		EXPECT_TRUE(exists(IMPORTER_DEV));
		EXPECT_EQ(llmem_live_pages(), 4);

		close(imp);
		EXPECT_EQ(llmem_live_pages(), 0);
		if (order) {
			ASSERT_EQ(delete_module("llmem_test_importer"), 0);
			ASSERT_EQ(delete_module("llmem"), 0);
		} else {
			ASSERT_EQ(delete_module("llmem"), 0);
			ASSERT_EQ(delete_module("llmem_test_importer"), 0);
		}
		EXPECT_FALSE(exists(LLMEM_DEV));
		EXPECT_FALSE(exists(IMPORTER_DEV));
		ASSERT_EQ(insmod(llmem_ko), 0);
		ASSERT_EQ(insmod(importer_ko), 0);
		ASSERT_TRUE(exists(LLMEM_DEV));
		ASSERT_TRUE(exists(IMPORTER_DEV));
	}
}

TEST_HARNESS_MAIN
