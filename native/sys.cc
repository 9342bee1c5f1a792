// Plain file descriptors: open/ioctl/close for hosts with a DTrace device, and system facts.
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "common.h"

namespace dtn {
namespace {

Napi::Value Open(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsString()) {
    ThrowType(env, "path must be a string");
    return env.Undefined();
  }
  std::string path = info[0].As<Napi::String>().Utf8Value();
  int64_t flags;
  if (!ArgInt(info, 1, "flags", &flags)) return env.Undefined();
  int fd = open(path.c_str(), static_cast<int>(flags) | O_CLOEXEC);
  if (fd < 0) {
    ThrowErrno(env, "open(" + path + ")", errno);
    return env.Undefined();
  }
  return Napi::Number::New(env, fd);
}

Napi::Value Ioctl(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd;
  int64_t request;
  Napi::Buffer<uint8_t> buf;
  if (!ArgFd(info, 0, &fd) || !ArgInt(info, 1, "request", &request) ||
      !ArgBuffer(info, 2, "buf", &buf))
    return env.Undefined();
  int r = ioctl(fd, static_cast<unsigned long>(request), buf.Data());
  if (r < 0) {
    ThrowErrno(env, "ioctl", errno);
    return env.Undefined();
  }
  return Napi::Number::New(env, r);
}

Napi::Value Close(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd;
  if (!ArgFd(info, 0, &fd)) return env.Undefined();
  // On Linux the fd is released even when close reports EINTR, so only other errors matter.
  if (close(fd) < 0 && errno != EINTR) ThrowErrno(env, "close", errno);
  return env.Undefined();
}

Napi::Value PageSize(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(sysconf(_SC_PAGESIZE)));
}

Napi::Value PossibleCpusFn(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), PossibleCpus());
}

}  // namespace

void RegisterSys(Napi::Env env, Napi::Object exports) {
  exports.Set("open", Napi::Function::New(env, Open, "open"));
  exports.Set("ioctl", Napi::Function::New(env, Ioctl, "ioctl"));
  exports.Set("close", Napi::Function::New(env, Close, "close"));
  exports.Set("pageSize", Napi::Function::New(env, PageSize, "pageSize"));
  exports.Set("possibleCpus", Napi::Function::New(env, PossibleCpusFn, "possibleCpus"));
}

}  // namespace dtn
