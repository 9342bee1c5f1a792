// waitReadable: poll(2) on a worker thread, so the event loop never blocks on the kernel.
#include <poll.h>
#include <time.h>

#include <cerrno>
#include <vector>

#include "common.h"

namespace dtn {
namespace {

int64_t NowMs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

class PollWorker : public Napi::AsyncWorker {
 public:
  PollWorker(Napi::Env env, std::vector<int> fds, int timeoutMs)
      : Napi::AsyncWorker(env, "dtrace_native.waitReadable"),
        deferred_(Napi::Promise::Deferred::New(env)),
        fds_(std::move(fds)),
        timeoutMs_(timeoutMs) {}

  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    std::vector<struct pollfd> pfds(fds_.size());
    for (size_t i = 0; i < fds_.size(); i++) pfds[i] = {fds_[i], POLLIN, 0};
    int64_t deadline = NowMs() + timeoutMs_;
    int remaining = timeoutMs_;
    for (;;) {
      int n = poll(pfds.data(), pfds.size(), remaining);
      if (n >= 0) break;
      if (errno != EINTR) {
        err_ = errno;
        return;
      }
      if (timeoutMs_ >= 0) {
        int64_t left = deadline - NowMs();
        remaining = left > 0 ? static_cast<int>(left) : 0;
      }
    }
    for (const auto& p : pfds) {
      if (p.revents & POLLNVAL) {
        err_ = EBADF;
        return;
      }
      // Hang-up and error also mean a read will not block.
      if (p.revents & (POLLIN | POLLHUP | POLLERR)) ready_.push_back(p.fd);
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    if (err_ != 0) {
      deferred_.Reject(ErrnoError(env, "poll", err_).Value());
      return;
    }
    Napi::Array out = Napi::Array::New(env, ready_.size());
    for (size_t i = 0; i < ready_.size(); i++) out.Set(i, Napi::Number::New(env, ready_[i]));
    deferred_.Resolve(out);
  }

  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  std::vector<int> fds_;
  int timeoutMs_;
  int err_ = 0;
  std::vector<int> ready_;
};

Napi::Value WaitReadable(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsArray()) {
    ThrowType(env, "fds must be an array");
    return env.Undefined();
  }
  Napi::Array arr = info[0].As<Napi::Array>();
  std::vector<int> fds;
  for (uint32_t i = 0; i < arr.Length(); i++) {
    Napi::Value v = arr.Get(i);
    if (!v.IsNumber() || v.As<Napi::Number>().Int64Value() < 0) {
      ThrowType(env, "fds must hold non-negative integers");
      return env.Undefined();
    }
    fds.push_back(v.As<Napi::Number>().Int32Value());
  }
  int64_t timeout;
  if (!ArgInt(info, 1, "timeoutMs", &timeout)) return env.Undefined();
  if (timeout > INT32_MAX) timeout = INT32_MAX;
  if (timeout < 0) timeout = -1;  // wait for ever
  auto* worker = new PollWorker(env, std::move(fds), static_cast<int>(timeout));
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

}  // namespace

void RegisterWait(Napi::Env env, Napi::Object exports) {
  exports.Set("waitReadable", Napi::Function::New(env, WaitReadable, "waitReadable"));
}

}  // namespace dtn
