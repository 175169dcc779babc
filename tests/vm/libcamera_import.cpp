// SPDX-License-Identifier: MIT
/*
 * libcamera capturing into llmem's memory: four buffers of one llmem.ko
 * page, each exported as a DMA-BUF of its own (llmem_buffer_export_range():
 * libcamera gives a capture queue no plane offset, so each frame must start
 * at byte 0 of its fd), handed to libcamera as FrameBuffers and captured
 * into by the camera named on the command line (vimc's Sensor B, loaded by
 * tests/vm/libcamera-check).  Every request completes with a whole frame
 * in the llmem buffer it carried, read through llmem's own mapping, and the
 * buffers are written in turn.  The first line of output that says FAIL
 * names what went wrong; the exit status is 1 then.
 *
 * usage: libcamera_import CAMERA_ID
 */
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include <unistd.h>

#include <libcamera/libcamera.h>
#include <llmem/llmem.h>

using namespace libcamera;

namespace {

constexpr unsigned int kBuffers = 4;
constexpr unsigned int kFrames = 8;
constexpr unsigned int kWidth = 640;
constexpr unsigned int kHeight = 480;

int failures;

bool check(bool cond, const char *what, const char *detail = "")
{
	if (!cond) {
		std::printf("FAIL: %s%s%s\n", what, *detail ? ": " : "", detail);
		failures++;
	}
	return cond;
}

struct Completions {
	std::mutex lock;
	std::condition_variable done;
	std::vector<Request *> completed;

	void onRequestCompleted(Request *request)
	{
		std::lock_guard<std::mutex> guard(lock);
		completed.push_back(request);
		done.notify_one();
	}
};

/* Values in every 97th byte of a frame: vimc's colour bars give eight (75%
 * bars: 0x00 and 0xbf in each channel), a buffer nothing wrote one. */
size_t distinctValues(const uint8_t *data, size_t size)
{
	std::set<uint8_t> seen;

	for (size_t i = 0; i < size; i += 97)
		seen.insert(data[i]);
	return seen.size();
}

struct LlmemBuffers {
	struct llmem_session *session = nullptr;
	struct llmem_memory *memory = nullptr;
	struct llmem_buffer *buffer[kBuffers] = {};
	struct llmem_dmabuf_region region[kBuffers] = {};

	LlmemBuffers()
	{
		for (unsigned int i = 0; i < kBuffers; i++)
			region[i].fd = -1;
	}

	~LlmemBuffers()
	{
		for (unsigned int i = 0; i < kBuffers; i++) {
			/* The FrameBuffers hold duplicates of these. */
			if (region[i].fd >= 0)
				close(region[i].fd);
			llmem_buffer_destroy(buffer[i]);
		}
		if (memory)
			llmem_memory_destroy(memory);
		if (session)
			llmem_session_destroy(session);
	}

	bool create(unsigned int frameSize)
	{
		struct llmem_memory_create_info mci = {};

		mci.sharing = LLMEM_SHARING_DMABUF;
		mci.backend = LLMEM_BACKEND_LLMEM_DMABUF;
		mci.flags = LLMEM_MEMORY_HOST_VISIBLE;
		mci.name = "libcamera frames";
		if (!check(llmem_session_create(nullptr, &session) == 0, "llmem_session_create",
			   llmem_last_error()) ||
		    !check(llmem_memory_create(session, &mci, &memory) == 0, "llmem_memory_create",
			   llmem_last_error()))
			return false;
		for (unsigned int i = 0; i < kBuffers; i++) {
			struct llmem_buffer_create_info bci = {};

			bci.size = frameSize;
			bci.alignment = 4096;
			bci.name = "frame";
			if (!check(llmem_buffer_create(memory, &bci, &buffer[i]) == 0,
				   "llmem_buffer_create", llmem_last_error()) ||
			    !check(llmem_buffer_export_range(buffer[i], &region[i]) == 0,
				   "llmem_buffer_export_range", llmem_last_error()))
				return false;
		}
		return true;
	}
};

int capture(Camera *camera)
{
	std::unique_ptr<CameraConfiguration> config =
		camera->generateConfiguration({ StreamRole::Viewfinder });
	if (!check(config && config->size() == 1, "one stream configuration"))
		return 1;
	StreamConfiguration &cfg = config->at(0);
	cfg.pixelFormat = formats::BGR888;
	cfg.size = Size(kWidth, kHeight);
	cfg.bufferCount = kBuffers;
	if (!check(config->validate() == CameraConfiguration::Valid,
		   "BGR888 640x480 is valid as asked", cfg.toString().c_str()) ||
	    !check(camera->configure(config.get()) == 0, "Camera::configure"))
		return 1;
	std::printf("# stream %s, stride %u, frame size %u\n", cfg.toString().c_str(), cfg.stride,
		    cfg.frameSize);
	check(cfg.frameSize >= cfg.stride * kHeight, "frame size holds every row");

	LlmemBuffers llmem;
	if (!llmem.create(cfg.frameSize))
		return 1;

	std::vector<std::unique_ptr<FrameBuffer>> frames;
	std::vector<std::unique_ptr<Request>> requests;
	for (unsigned int i = 0; i < kBuffers; i++) {
		FrameBuffer::Plane plane;

		plane.fd = SharedFD(llmem.region[i].fd);
		plane.offset = 0;
		plane.length = cfg.frameSize;
		frames.push_back(std::make_unique<FrameBuffer>(std::vector<FrameBuffer::Plane>{ plane },
							       i));
		std::unique_ptr<Request> request = camera->createRequest(i);
		if (!check(request != nullptr, "Camera::createRequest") ||
		    !check(request->addBuffer(cfg.stream(), frames.back().get()) == 0,
			   "Request::addBuffer of an llmem DMA-BUF"))
			return 1;
		requests.push_back(std::move(request));
	}

	Completions completions;
	camera->requestCompleted.connect(&completions, &Completions::onRequestCompleted);
	if (!check(camera->start() == 0, "Camera::start"))
		return 1;
	for (auto &request : requests)
		check(camera->queueRequest(request.get()) == 0, "Camera::queueRequest");

	std::vector<unsigned int> order;
	for (unsigned int got = 0; got < kFrames && !failures; got++) {
		std::unique_lock<std::mutex> guard(completions.lock);
		if (!completions.done.wait_for(guard, std::chrono::seconds(60),
					       [&] { return !completions.completed.empty(); })) {
			check(false, "a request completed within 60 s");
			break;
		}
		Request *request = completions.completed.front();
		completions.completed.erase(completions.completed.begin());
		guard.unlock();

		unsigned int i = request->cookie();
		FrameBuffer *fb = request->findBuffer(cfg.stream());
		const FrameMetadata &md = fb->metadata();
		order.push_back(i);
		check(request->status() == Request::RequestComplete, "request complete");
		check(fb == frames[i].get(), "the request carries its own llmem buffer");
		check(md.status == FrameMetadata::FrameSuccess, "frame status FrameSuccess");
		check(md.planes().size() == 1 && md.planes()[0].bytesused == cfg.frameSize,
		      "a whole frame written");

		void *ptr;
		if (check(llmem_buffer_map(llmem.buffer[i], &ptr) == 0, "llmem_buffer_map",
			  llmem_last_error())) {
			llmem_buffer_invalidate(llmem.buffer[i], 0, LLMEM_WHOLE_SIZE);
			const uint8_t *data = static_cast<const uint8_t *>(ptr);
			size_t values = distinctValues(data, cfg.frameSize);
			char detail[160];

			std::snprintf(detail, sizeof(detail),
				      "buffer %u: %zu values, bytes %02x %02x %02x %02x at 0, "
				      "%02x %02x %02x at the middle",
				      i, values, data[0], data[1], data[2], data[3],
				      data[cfg.frameSize / 2], data[cfg.frameSize / 2 + 1],
				      data[cfg.frameSize / 2 + 2]);
			check(values >= 4, "the llmem buffer holds vimc's picture", detail);
			/* Poison it: the next frame in this buffer must be written anew. */
			std::memset(ptr, 0, cfg.frameSize);
			llmem_buffer_flush(llmem.buffer[i], 0, LLMEM_WHOLE_SIZE);
			llmem_buffer_unmap(llmem.buffer[i]);
		}
		request->reuse(Request::ReuseBuffers);
		check(camera->queueRequest(request) == 0, "Camera::queueRequest again");
	}
	camera->stop();
	camera->requestCompleted.disconnect(&completions);

	std::set<unsigned int> used(order.begin(), order.end());
	check(order.size() == kFrames, "every frame came");
	check(used.size() == kBuffers, "every llmem buffer was written");
	if (!failures)
		std::printf("ok: %u frames of %ux%u BGR888 captured by libcamera into %u llmem.ko "
			    "DMA-BUFs of one page\n",
			    kFrames, kWidth, kHeight, kBuffers);
	return failures ? 1 : 0;
}

} /* namespace */

int main(int argc, char **argv)
{
	if (argc != 2) {
		std::fprintf(stderr, "usage: libcamera_import CAMERA_ID\n");
		return 2;
	}
	CameraManager manager;
	if (!check(manager.start() == 0, "CameraManager::start"))
		return 1;
	std::shared_ptr<Camera> camera = manager.get(argv[1]);
	int ret = 1;
	if (check(camera != nullptr, "the camera is listed", argv[1]) &&
	    check(camera->acquire() == 0, "Camera::acquire")) {
		ret = capture(camera.get());
		camera->release();
	}
	camera.reset();
	manager.stop();
	return ret;
}
