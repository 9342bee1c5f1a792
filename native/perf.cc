// perf_event_open(2), its ioctls, and the mmap'ed ring buffer that bpf_perf_event_output fills.
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "common.h"

namespace dtn {
namespace {

Napi::Value PerfEventOpen(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o;
  int64_t type, sampleFreq, sampleType, wakeupEvents, wakeupWatermark, pid, cpu, groupFd, flags;
  uint64_t config, config1, config2, samplePeriod, probeOffset;
  std::string uprobePath;
  bool hasPath = false, disabled = false, excludeUser = false, excludeKernel = false;
  if (!ArgObject(info, 0, "options", &o) || !PropInt(env, o, "type", true, 0, &type) ||
      !PropU64(env, o, "config", true, 0, &config) ||
      !PropU64(env, o, "config1", false, 0, &config1) ||
      !PropU64(env, o, "config2", false, 0, &config2) ||
      !PropU64(env, o, "samplePeriod", false, 0, &samplePeriod) ||
      !PropInt(env, o, "sampleFreq", false, 0, &sampleFreq) ||
      !PropInt(env, o, "sampleType", false, 0, &sampleType) ||
      !PropInt(env, o, "wakeupEvents", false, 0, &wakeupEvents) ||
      !PropInt(env, o, "wakeupWatermark", false, 0, &wakeupWatermark) ||
      !PropInt(env, o, "pid", true, 0, &pid) || !PropInt(env, o, "cpu", true, 0, &cpu) ||
      !PropInt(env, o, "groupFd", false, -1, &groupFd) ||
      !PropInt(env, o, "flags", false, 0, &flags) ||
      !PropString(env, o, "uprobePath", false, &uprobePath, &hasPath) ||
      !PropU64(env, o, "probeOffset", false, 0, &probeOffset) ||
      !PropBool(env, o, "disabled", false, &disabled) ||
      !PropBool(env, o, "excludeUser", false, &excludeUser) ||
      !PropBool(env, o, "excludeKernel", false, &excludeKernel))
    return env.Undefined();

  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = static_cast<uint32_t>(type);
  attr.config = config;
  attr.config1 = config1;
  attr.config2 = config2;
  if (sampleFreq > 0) {
    attr.freq = 1;
    attr.sample_freq = static_cast<uint64_t>(sampleFreq);
  } else {
    attr.sample_period = samplePeriod;
  }
  attr.sample_type = static_cast<uint64_t>(sampleType);
  // A byte watermark (wakeup_watermark) instead of an event count, when given.
  if (wakeupWatermark > 0) {
    attr.watermark = 1;
    attr.wakeup_watermark = static_cast<uint32_t>(wakeupWatermark);
  } else {
    attr.wakeup_events = static_cast<uint32_t>(wakeupEvents);
  }
  attr.disabled = disabled ? 1 : 0;
  attr.exclude_user = excludeUser ? 1 : 0;
  attr.exclude_kernel = excludeKernel ? 1 : 0;
  if (hasPath) {
    // The uprobe PMU takes the binary's path by address in config1 and the file offset in config2.
    attr.config1 = reinterpret_cast<uintptr_t>(uprobePath.c_str());
    attr.config2 = probeOffset;
  }
  long fd = syscall(__NR_perf_event_open, &attr, static_cast<pid_t>(pid), static_cast<int>(cpu),
                    static_cast<int>(groupFd),
                    static_cast<unsigned long>(flags) | PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) {
    ThrowErrno(env, "perf_event_open", errno);
    return env.Undefined();
  }
  return Napi::Number::New(env, static_cast<double>(fd));
}

Napi::Value PerfIoctl(const Napi::CallbackInfo& info, unsigned long request, const char* name,
                      bool withArg) {
  Napi::Env env = info.Env();
  int fd;
  int64_t arg = 0;
  if (!ArgFd(info, 0, &fd) || (withArg && !ArgInt(info, 1, "arg", &arg))) return env.Undefined();
  if (ioctl(fd, request, static_cast<unsigned long>(arg)) < 0)
    ThrowErrno(env, std::string("ioctl(") + name + ")", errno);
  return env.Undefined();
}

Napi::Value PerfEventSetBpf(const Napi::CallbackInfo& info) {
  return PerfIoctl(info, PERF_EVENT_IOC_SET_BPF, "PERF_EVENT_IOC_SET_BPF", true);
}
Napi::Value PerfEventEnable(const Napi::CallbackInfo& info) {
  return PerfIoctl(info, PERF_EVENT_IOC_ENABLE, "PERF_EVENT_IOC_ENABLE", false);
}
Napi::Value PerfEventDisable(const Napi::CallbackInfo& info) {
  return PerfIoctl(info, PERF_EVENT_IOC_DISABLE, "PERF_EVENT_IOC_DISABLE", false);
}

// One mmap'ed perf ring: a control page followed by a power-of-two data area.
struct Ring {
  uint8_t* base;
  size_t mapSize;
};

std::mutex ringsLock;
std::unordered_map<int32_t, Ring> rings;
int32_t nextHandle = 1;

Napi::Value PerfBufferOpen(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd;
  int64_t pages;
  if (!ArgFd(info, 0, &fd) || !ArgInt(info, 1, "pages", &pages)) return env.Undefined();
  if (pages <= 0 || (pages & (pages - 1)) != 0 || pages > (1 << 20)) {
    ThrowRange(env, "pages must be a power of two");
    return env.Undefined();
  }
  size_t pageSize = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t mapSize = (static_cast<size_t>(pages) + 1) * pageSize;
  // Writable so the kernel honours data_tail and never overwrites unread records.
  void* base = mmap(nullptr, mapSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    ThrowErrno(env, "mmap", errno);
    return env.Undefined();
  }
  std::lock_guard<std::mutex> guard(ringsLock);
  int32_t handle = nextHandle++;
  rings[handle] = Ring{static_cast<uint8_t*>(base), mapSize};
  return Napi::Number::New(env, handle);
}

bool FindRing(const Napi::CallbackInfo& info, int32_t* handle, Ring* ring) {
  int64_t h;
  if (!ArgInt(info, 0, "handle", &h)) return false;
  std::lock_guard<std::mutex> guard(ringsLock);
  auto it = rings.find(static_cast<int32_t>(h));
  if (it == rings.end()) {
    ThrowErrno(info.Env(), "perf buffer", EBADF);
    return false;
  }
  *handle = it->first;
  *ring = it->second;
  return true;
}

// Copies len bytes starting at ring offset pos, wrapping at the end of the data area.
void CopyOut(const uint8_t* data, uint64_t size, uint64_t pos, uint8_t* out, size_t len) {
  uint64_t start = pos & (size - 1);
  size_t first = static_cast<size_t>(size - start < len ? size - start : len);
  memcpy(out, data + start, first);
  if (first < len) memcpy(out + first, data, len - first);
}

// Reads every complete record. Assumes the events were opened with sample_type PERF_SAMPLE_RAW
// only, so a sample is: header, u32 size, size bytes (the kernel pads size to keep 8-byte records).
// The samples' bytes come back in one buffer, with a [start, length] pair for each: one
// allocation per read, however many records the ring held.
Napi::Value PerfBufferRead(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int32_t handle;
  Ring ring;
  if (!FindRing(info, &handle, &ring)) return env.Undefined();
  auto* meta = reinterpret_cast<struct perf_event_mmap_page*>(ring.base);
  size_t pageSize = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  uint64_t dataOffset = meta->data_offset ? meta->data_offset : pageSize;
  uint64_t dataSize = meta->data_size ? meta->data_size : ring.mapSize - pageSize;
  const uint8_t* data = ring.base + dataOffset;

  // Acquire pairs with the kernel's write barrier: records before head are fully written.
  uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = meta->data_tail;
  // First pass: where each sample's bytes are, and the lost counts.
  struct Sample { uint64_t at; uint32_t size; };
  std::vector<Sample> found;
  uint64_t total = 0;
  double lost = 0;
  uint64_t pos = tail;
  while (head - pos >= sizeof(struct perf_event_header)) {
    struct perf_event_header hdr;
    CopyOut(data, dataSize, pos, reinterpret_cast<uint8_t*>(&hdr), sizeof hdr);
    if (hdr.size < sizeof hdr || hdr.size > head - pos) break;  // not possible unless corrupted
    if (hdr.type == PERF_RECORD_SAMPLE && hdr.size >= sizeof hdr + 4) {
      uint32_t rawSize;
      CopyOut(data, dataSize, pos + sizeof hdr, reinterpret_cast<uint8_t*>(&rawSize), 4);
      if (sizeof hdr + 4 + static_cast<uint64_t>(rawSize) <= hdr.size) {
        found.push_back(Sample{pos + sizeof hdr + 4, rawSize});
        total += rawSize;
      }
    } else if (hdr.type == PERF_RECORD_LOST && hdr.size >= sizeof hdr + 16) {
      uint64_t n;  // after the u64 id
      CopyOut(data, dataSize, pos + sizeof hdr + 8, reinterpret_cast<uint8_t*>(&n), 8);
      lost += static_cast<double>(n);
    }
    pos += hdr.size;
  }
  // Second pass: copy the samples out, then give their space back to the kernel.
  Napi::Buffer<uint8_t> bytes = Napi::Buffer<uint8_t>::New(env, static_cast<size_t>(total));
  Napi::Uint32Array bounds = Napi::Uint32Array::New(env, found.size() * 2);
  uint64_t at = 0;
  for (size_t i = 0; i < found.size(); i++) {
    CopyOut(data, dataSize, found[i].at, bytes.Data() + at, found[i].size);
    bounds[2 * i] = static_cast<uint32_t>(at);
    bounds[2 * i + 1] = found[i].size;
    at += found[i].size;
  }
  // Release: our reads of the records happen before the kernel may reuse the space.
  __atomic_store_n(&meta->data_tail, pos, __ATOMIC_RELEASE);

  Napi::Object result = Napi::Object::New(env);
  result.Set("bytes", bytes);
  result.Set("bounds", bounds);
  result.Set("lost", Napi::Number::New(env, lost));
  return result;
}

Napi::Value PerfBufferClose(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int32_t handle;
  Ring ring;
  if (!FindRing(info, &handle, &ring)) return env.Undefined();
  {
    std::lock_guard<std::mutex> guard(ringsLock);
    rings.erase(handle);
  }
  if (munmap(ring.base, ring.mapSize) < 0) ThrowErrno(env, "munmap", errno);
  return env.Undefined();
}

}  // namespace

void RegisterPerf(Napi::Env env, Napi::Object exports) {
  exports.Set("perfEventOpen", Napi::Function::New(env, PerfEventOpen, "perfEventOpen"));
  exports.Set("perfEventSetBpf", Napi::Function::New(env, PerfEventSetBpf, "perfEventSetBpf"));
  exports.Set("perfEventEnable", Napi::Function::New(env, PerfEventEnable, "perfEventEnable"));
  exports.Set("perfEventDisable", Napi::Function::New(env, PerfEventDisable, "perfEventDisable"));
  exports.Set("perfBufferOpen", Napi::Function::New(env, PerfBufferOpen, "perfBufferOpen"));
  exports.Set("perfBufferRead", Napi::Function::New(env, PerfBufferRead, "perfBufferRead"));
  exports.Set("perfBufferClose", Napi::Function::New(env, PerfBufferClose, "perfBufferClose"));
}

}  // namespace dtn
