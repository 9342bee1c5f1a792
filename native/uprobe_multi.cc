// bpf(BPF_LINK_CREATE) with attach type BPF_TRACE_UPROBE_MULTI (Linux 6.6+): one BPF program on
// many uprobes of one file in a single call, all detached together when the link fd is closed.
// The system headers may predate it, so the attribute layout is spelled out here.
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "common.h"

namespace dtn {
namespace {

constexpr int kBpfLinkCreate = 28;            // BPF_LINK_CREATE
constexpr uint32_t kTraceUprobeMulti = 48;    // BPF_TRACE_UPROBE_MULTI
constexpr uint32_t kUprobeMultiReturn = 1u;   // BPF_F_UPROBE_MULTI_RETURN

// union bpf_attr's link_create member, with its uprobe_multi variant.
struct LinkCreateUprobeMulti {
  uint32_t prog_fd;
  uint32_t target_fd;
  uint32_t attach_type;
  uint32_t flags;
  uint64_t path;             // const char *
  uint64_t offsets;          // const u64 * (file offsets)
  uint64_t ref_ctr_offsets;  // const u64 *, or 0
  uint64_t cookies;          // const u64 *, or 0
  uint32_t cnt;
  uint32_t multi_flags;
  uint32_t pid;
};

// uprobeMultiAttach(progFd, path, offsets, refCtrOffsets|null, cookies|null, pid, retprobe)
// offsets, refCtrOffsets and cookies are Buffers of little-endian u64s, one per uprobe.
Napi::Value UprobeMultiAttach(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int progFd;
  if (!ArgFd(info, 0, &progFd)) return env.Undefined();
  if (!info[1].IsString()) {
    ThrowType(env, "path must be a string");
    return env.Undefined();
  }
  std::string path = info[1].As<Napi::String>().Utf8Value();
  Napi::Buffer<uint8_t> offsets, refCtr, cookies;
  bool hasRefCtr = false, hasCookies = false;
  int64_t pid;
  if (!ArgBuffer(info, 2, "offsets", &offsets) ||
      !ArgOptBuffer(info, 3, "refCtrOffsets", &refCtr, &hasRefCtr) ||
      !ArgOptBuffer(info, 4, "cookies", &cookies, &hasCookies) ||
      !ArgOptInt(info, 5, "pid", 0, &pid))
    return env.Undefined();
  bool retprobe = info.Length() > 6 && info[6].ToBoolean().Value();
  size_t cnt = offsets.Length() / 8;
  if (cnt == 0 || offsets.Length() % 8 != 0 || (hasRefCtr && refCtr.Length() != offsets.Length()) ||
      (hasCookies && cookies.Length() != offsets.Length())) {
    ThrowRange(env, "offsets must hold one or more u64s, and refCtrOffsets and cookies as many");
    return env.Undefined();
  }
  if (pid < 0 || pid > INT32_MAX) {
    ThrowRange(env, "pid out of range");
    return env.Undefined();
  }
  // bpf_attr is larger than this member: zero the whole union's worth.
  alignas(8) unsigned char attr[160];
  memset(attr, 0, sizeof attr);
  LinkCreateUprobeMulti* lc = reinterpret_cast<LinkCreateUprobeMulti*>(attr);
  lc->prog_fd = static_cast<uint32_t>(progFd);
  lc->attach_type = kTraceUprobeMulti;
  lc->path = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(path.c_str()));
  lc->offsets = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(offsets.Data()));
  if (hasRefCtr) lc->ref_ctr_offsets = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(refCtr.Data()));
  if (hasCookies) lc->cookies = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(cookies.Data()));
  lc->cnt = static_cast<uint32_t>(cnt);
  lc->multi_flags = retprobe ? kUprobeMultiReturn : 0;
  lc->pid = static_cast<uint32_t>(pid);
  long fd = syscall(__NR_bpf, kBpfLinkCreate, attr, sizeof attr);
  if (fd < 0) {
    ThrowErrno(env, "bpf(BPF_LINK_CREATE uprobe_multi " + path + ")", errno);
    return env.Undefined();
  }
  return Napi::Number::New(env, static_cast<double>(fd));
}

}  // namespace

void RegisterUprobeMulti(Napi::Env env, Napi::Object exports) {
  exports.Set("uprobeMultiAttach", Napi::Function::New(env, UprobeMultiAttach, "uprobeMultiAttach"));
}

}  // namespace dtn
