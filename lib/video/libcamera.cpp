// SPDX-License-Identifier: MIT
/*
 * libcamera behind the C interface of libcamera.h.  libcamera completes
 * requests on its own thread: the completions are queued under a lock and
 * counted on an eventfd, which the caller polls, and the caller's thread
 * takes them from the queue.  Everything libcamera owns stays in here:
 * the rest of the library sees indices, fds and DRM fourccs.
 */
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <libcamera/libcamera.h>

extern "C" {
#include "base/error.h"
}
#include "video/libcamera.h"

using namespace libcamera;

namespace
{

/*
 * libcamera allows one camera manager a process (a second one aborts), and
 * a manager made again after one was stopped and destroyed crashes in its
 * enumeration: the first user starts it, and it serves every camera the
 * library opens until the process ends.
 */
std::mutex manager_lock;
CameraManager *manager;

int manager_get()
{
	std::lock_guard<std::mutex> guard(manager_lock);

	if (manager)
		return 0;
	/*
	 * libcamera logs its version, every camera and every configuration at
	 * INFO on stderr: a library's caller hears warnings only, unless it
	 * chose its own levels.  libcamera reads the levels of categories not
	 * yet made from its environment alone (logSetLevel() knows only made
	 * ones), before it first logs.
	 */
	setenv("LIBCAMERA_LOG_LEVELS", "*:WARN", 0);
	auto started = std::make_unique<CameraManager>();
	int ret = started->start();
	if (ret)
		return llmem_error(ret, "libcamera: CameraManager::start: %s", std::strerror(-ret));
	manager = started.release();
	return 0;
}

/*
 * libcamera and the standard library report running out of memory, and
 * at() a missing element, by throwing; an exception must not cross into
 * the C caller, so every entry point runs its body through this.
 */
template <typename Body> int guarded(const char *call, Body &&body) noexcept
{
	try {
		return body();
	} catch (const std::bad_alloc &) {
		return llmem_error(-ENOMEM, "libcamera: %s: out of memory", call);
	} catch (const std::exception &e) {
		return llmem_error(-EIO, "libcamera: %s: %s", call, e.what());
	} catch (...) {
		return llmem_error(-EIO, "libcamera: %s failed", call);
	}
}

} /* namespace */

struct llmem_libcamera {
	std::shared_ptr<Camera> camera;
	bool acquired = false;
	bool running = false;
	std::unique_ptr<CameraConfiguration> config;
	Stream *stream = nullptr;
	/* The caller's buffers (llmem_libcamera_add_buffer()), or on the copy
	 * path libcamera's own, which @allocator holds. */
	std::vector<std::unique_ptr<FrameBuffer>> buffers;
	std::unique_ptr<FrameBufferAllocator> allocator;
	std::vector<std::unique_ptr<Request>> requests;
	/* Counts the completions in @completed (EFD_SEMAPHORE: one read takes
	 * one); after a disconnection it stays readable. */
	int efd = -1;
	std::mutex lock;
	std::deque<Request *> completed;
	bool disconnected = false;

	void onRequestCompleted(Request *request)
	{
		/* Camera::stop() cancels what is queued: nothing to hand out. */
		if (request->status() == Request::RequestCancelled)
			return;
		std::lock_guard<std::mutex> guard(lock);
		completed.push_back(request);
		eventfd_write(efd, 1);
	}

	void onDisconnected()
	{
		std::lock_guard<std::mutex> guard(lock);
		disconnected = true;
		eventfd_write(efd, 1);
	}

	/* Also what an exception thrown half-way through opening leaves. */
	~llmem_libcamera()
	{
		if (camera) {
			llmem_libcamera_stop(this);
			camera->requestCompleted.disconnect(this);
			camera->disconnected.disconnect(this);
			requests.clear();
			buffers.clear();
			allocator.reset();
			config.reset();
			if (acquired)
				camera->release();
			camera.reset();
		}
		if (efd >= 0)
			close(efd);
	}

	void drain()
	{
		eventfd_t count;

		std::lock_guard<std::mutex> guard(lock);
		completed.clear();
		while (!disconnected && eventfd_read(efd, &count) == 0)
			;
	}
};

int llmem_libcamera_open(const char *id, char *id_out, uint32_t id_size,
			 struct llmem_libcamera **out)
{
	return guarded("open", [&] {
		*out = nullptr;
		int ret = manager_get();
		if (ret)
			return ret;
		auto lc = std::make_unique<llmem_libcamera>();
		if (id) {
			lc->camera = manager->get(id);
			if (!lc->camera)
				ret = llmem_error(
					-ENODEV,
					"libcamera: no camera \"%s\" (`llmem devices` lists them)",
					id);
		} else if (manager->cameras().empty()) {
			ret = llmem_error(-ENODEV, "libcamera: no camera found");
		} else {
			lc->camera = manager->cameras().front();
		}
		if (!ret && lc->camera->id().size() >= id_size)
			ret = llmem_error(-ENAMETOOLONG,
					  "libcamera: camera id \"%s\" is longer than %u bytes",
					  lc->camera->id().c_str(), id_size - 1);
		if (!ret) {
			ret = lc->camera->acquire();
			if (ret)
				llmem_error(ret, "libcamera: Camera::acquire of %s: %s%s",
					    lc->camera->id().c_str(), std::strerror(-ret),
					    ret == -EBUSY ? " (another process or object has it)"
							  : "");
			lc->acquired = !ret;
		}
		if (!ret) {
			lc->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK | EFD_SEMAPHORE);
			if (lc->efd < 0)
				ret = llmem_error(-errno, "libcamera: eventfd: %s",
						  std::strerror(errno));
		}
		if (ret)
			return ret;
		std::snprintf(id_out, id_size, "%s", lc->camera->id().c_str());
		lc->camera->requestCompleted.connect(lc.get(),
						     &llmem_libcamera::onRequestCompleted);
		lc->camera->disconnected.connect(lc.get(), &llmem_libcamera::onDisconnected);
		*out = lc.release();
		return 0;
	});
}

/* The format to ask for: @fourcc, or the camera's own default where the
 * caller takes it, or the first of @fourccs the stream offers. */
static int choose_format(const StreamConfiguration &cfg, uint32_t fourcc, const uint32_t *fourccs,
			 uint32_t num_fourccs, PixelFormat *out)
{
	std::vector<PixelFormat> offered = cfg.formats().pixelformats();
	std::string names;

	if (fourcc) {
		*out = PixelFormat(fourcc);
		return 0;
	}
	for (uint32_t i = 0; i < num_fourccs; i++) {
		if (cfg.pixelFormat.fourcc() == fourccs[i] && !cfg.pixelFormat.modifier()) {
			*out = cfg.pixelFormat;
			return 0;
		}
	}
	for (uint32_t i = 0; i < num_fourccs; i++) {
		for (const PixelFormat &f : offered) {
			if (f.fourcc() == fourccs[i] && !f.modifier()) {
				*out = f;
				return 0;
			}
		}
	}
	for (const PixelFormat &f : offered)
		names += (names.empty() ? "" : ", ") + f.toString();
	return llmem_error(-ENOTSUP,
			   "libcamera: the camera's stream offers %s, none of which llmem converts",
			   names.empty() ? "no format" : names.c_str());
}

int llmem_libcamera_configure(struct llmem_libcamera *lc, uint32_t fourcc, const uint32_t *fourccs,
			      uint32_t num_fourccs, uint32_t width, uint32_t height,
			      uint32_t buffers, struct llmem_libcamera_stream *out)
{
	return guarded("configure", [&] {
		const char *id = lc->camera->id().c_str();
		PixelFormat format;

		lc->config = lc->camera->generateConfiguration({ StreamRole::Viewfinder });
		if (!lc->config || lc->config->size() != 1)
			return llmem_error(-ENOTSUP, "libcamera: %s offers no viewfinder stream",
					   id);
		StreamConfiguration &cfg = lc->config->at(0);
		int ret = choose_format(cfg, fourcc, fourccs, num_fourccs, &format);
		if (ret)
			return ret;
		std::string asked = format.toString() + " " + Size(width, height).toString();
		cfg.pixelFormat = format;
		cfg.size = Size(width, height);
		cfg.bufferCount = buffers;
		if (lc->config->validate() == CameraConfiguration::Invalid)
			return llmem_error(-EINVAL, "libcamera: %s cannot stream %s", id,
					   asked.c_str());
		/* The buffer count is the pipeline handler's to choose, as a V4L2
		 * driver grants buffers; the format and size are the caller's. */
		if (cfg.pixelFormat != format || cfg.size != Size(width, height))
			return llmem_error(-EINVAL, "libcamera: %s offers %s, not %s", id,
					   cfg.toString().c_str(), asked.c_str());
		ret = lc->camera->configure(lc->config.get());
		if (ret)
			return llmem_error(ret, "libcamera: Camera::configure of %s to %s: %s", id,
					   cfg.toString().c_str(), std::strerror(-ret));
		lc->stream = cfg.stream();
		out->fourcc = cfg.pixelFormat.fourcc();
		out->width = cfg.size.width;
		out->height = cfg.size.height;
		out->stride = cfg.stride;
		out->frame_size = cfg.frameSize;
		out->buffers = cfg.bufferCount;
		return 0;
	});
}

/* A request for buffer @index, carrying @buffer. */
static int add_request(struct llmem_libcamera *lc, uint32_t index, FrameBuffer *buffer)
{
	std::unique_ptr<Request> request = lc->camera->createRequest(index);
	if (!request)
		return llmem_error(-ENOMEM, "libcamera: Camera::createRequest %u failed", index);
	int ret = request->addBuffer(lc->stream, buffer);
	if (ret)
		return llmem_error(ret, "libcamera: Request::addBuffer %u: %s", index,
				   std::strerror(-ret));
	lc->requests.push_back(std::move(request));
	return 0;
}

int llmem_libcamera_add_buffer(struct llmem_libcamera *lc, uint32_t index, int fd,
			       const uint32_t *offsets, uint32_t num_planes, uint32_t length)
{
	return guarded("add_buffer", [&] {
		std::vector<FrameBuffer::Plane> planes(num_planes);

		if (index != lc->requests.size())
			return llmem_error(-EINVAL, "libcamera: buffer %u added out of turn",
					   index);
		for (uint32_t p = 0; p < num_planes; p++) {
			uint32_t end = p + 1 < num_planes ? offsets[p + 1] : length;

			/* SharedFD of an lvalue holds a duplicate: the fd stays the caller's. */
			planes[p].fd = SharedFD(fd);
			if (!planes[p].fd.isValid())
				return llmem_error(-errno, "libcamera: dup of buffer %u's fd: %s",
						   index, std::strerror(errno));
			planes[p].offset = offsets[p];
			planes[p].length = end - offsets[p];
		}
		auto buffer = std::make_unique<FrameBuffer>(planes, index);
		int ret = add_request(lc, index, buffer.get());
		if (!ret)
			lc->buffers.push_back(std::move(buffer));
		return ret;
	});
}

int llmem_libcamera_allocate(struct llmem_libcamera *lc, uint32_t *count)
{
	return guarded("allocate", [&] {
		const char *id = lc->camera->id().c_str();

		lc->allocator = std::make_unique<FrameBufferAllocator>(lc->camera);
		int ret = lc->allocator->allocate(lc->stream);
		if (ret < 0)
			return llmem_error(ret,
					   "libcamera: FrameBufferAllocator::allocate on %s: %s",
					   id, std::strerror(-ret));
		const std::vector<std::unique_ptr<FrameBuffer>> &own =
			lc->allocator->buffers(lc->stream);
		for (uint32_t i = 0; i < own.size(); i++) {
			ret = add_request(lc, i, own[i].get());
			if (ret)
				return ret;
		}
		*count = own.size();
		return 0;
	});
}

int llmem_libcamera_export(struct llmem_libcamera *lc, uint32_t index, int *fd, uint32_t *offset,
			   uint32_t *length)
{
	return guarded("export", [&] {
		const FrameBuffer::Plane &plane =
			lc->allocator->buffers(lc->stream).at(index)->planes().front();

		*fd = fcntl(plane.fd.get(), F_DUPFD_CLOEXEC, 0);
		if (*fd < 0)
			return llmem_error(-errno, "libcamera: dup of buffer %u: %s", index,
					   std::strerror(errno));
		*offset = plane.offset;
		*length = plane.length;
		return 0;
	});
}

static int queue(struct llmem_libcamera *lc, uint32_t index)
{
	Request *request = lc->requests[index].get();

	request->reuse(Request::ReuseBuffers);
	int ret = lc->camera->queueRequest(request);
	if (ret)
		return llmem_error(ret, "libcamera: Camera::queueRequest %u on %s: %s", index,
				   lc->camera->id().c_str(), std::strerror(-ret));
	return 0;
}

int llmem_libcamera_start(struct llmem_libcamera *lc)
{
	return guarded("start", [&] {
		const char *id = lc->camera->id().c_str();

		if (lc->disconnected)
			return llmem_error(-ENODEV, "libcamera: %s was disconnected", id);
		int ret = lc->camera->start();
		if (ret)
			return llmem_error(ret, "libcamera: Camera::start of %s: %s", id,
					   std::strerror(-ret));
		lc->running = true;
		for (uint32_t i = 0; i < lc->requests.size(); i++) {
			ret = queue(lc, i);
			if (ret) {
				llmem_libcamera_stop(lc);
				return ret;
			}
		}
		return 0;
	});
}

int llmem_libcamera_stop(struct llmem_libcamera *lc)
{
	return guarded("stop", [&] {
		if (!lc->running)
			return 0;
		int ret = lc->camera->stop();
		lc->running = false;
		lc->drain();
		if (ret)
			return llmem_error(ret, "libcamera: Camera::stop of %s: %s",
					   lc->camera->id().c_str(), std::strerror(-ret));
		return 0;
	});
}

int llmem_libcamera_fd(const struct llmem_libcamera *lc)
{
	return lc->efd;
}

int llmem_libcamera_dequeue(struct llmem_libcamera *lc, int timeout_ms,
			    struct llmem_libcamera_frame *out)
{
	return guarded("dequeue", [&] {
		struct pollfd pfd = { lc->efd, POLLIN, 0 };
		const char *id = lc->camera->id().c_str();
		eventfd_t one;
		int ret;

		do
			ret = poll(&pfd, 1, timeout_ms);
		while (ret < 0 && errno == EINTR);
		if (ret < 0)
			return llmem_error(-errno, "libcamera: poll on %s: %s", id,
					   std::strerror(errno));

		std::unique_lock<std::mutex> guard(lc->lock);
		if (lc->completed.empty()) {
			if (lc->disconnected)
				return llmem_error(
					-ENODEV,
					"libcamera: %s was disconnected: only closing it is left",
					id);
			return llmem_error(-ETIMEDOUT, "libcamera: no frame from %s in %d ms", id,
					   timeout_ms);
		}
		Request *request = lc->completed.front();
		lc->completed.pop_front();
		eventfd_read(lc->efd, &one);
		guard.unlock();

		const FrameMetadata &md = request->buffers().at(lc->stream)->metadata();
		uint32_t used = 0;
		for (const FrameMetadata::Plane &plane : md.planes())
			used += plane.bytesused;
		out->index = static_cast<uint32_t>(request->cookie());
		out->sequence = md.sequence;
		out->corrupted = md.status != FrameMetadata::FrameSuccess;
		out->bytesused = used;
		out->timestamp_ns = md.timestamp;
		return 0;
	});
}

int llmem_libcamera_queue(struct llmem_libcamera *lc, uint32_t index)
{
	return guarded("queue", [&] {
		if (lc->disconnected)
			return llmem_error(-ENODEV, "libcamera: %s was disconnected",
					   lc->camera->id().c_str());
		return queue(lc, index);
	});
}

void llmem_libcamera_close(struct llmem_libcamera *lc)
{
	delete lc;
}

int llmem_libcamera_list(char *ids, uint32_t size, uint32_t max, uint32_t *count)
{
	return guarded("list", [&] {
		int ret = manager_get();
		if (ret)
			return ret;
		std::vector<std::shared_ptr<Camera>> cameras = manager->cameras();
		*count = cameras.size();
		for (uint32_t i = 0; i < max && i < cameras.size(); i++)
			std::snprintf(ids + (size_t)i * size, size, "%s", cameras[i]->id().c_str());
		return 0;
	});
}
