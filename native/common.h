// Shared helpers for the native bridge: turning errno into JavaScript errors and reading
// arguments safely. Exceptions are disabled, so every helper reports failure by returning false
// after scheduling a JavaScript exception; callers return immediately.
#pragma once

#include <napi.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace dtn {

// Throws Error("<what>: <strerror>") with .code = errno name and .errno = number.
void ThrowErrno(Napi::Env env, const std::string& what, int err);
// Builds (without throwing) the same Error object, for rejecting promises.
Napi::Error ErrnoError(Napi::Env env, const std::string& what, int err);
void ThrowType(Napi::Env env, const std::string& message);
void ThrowRange(Napi::Env env, const std::string& message);

// Argument readers. `name` appears in the TypeError message.
bool ArgInt(const Napi::CallbackInfo& info, size_t i, const char* name, int64_t* out);
bool ArgOptInt(const Napi::CallbackInfo& info, size_t i, const char* name, int64_t def,
               int64_t* out);
bool ArgFd(const Napi::CallbackInfo& info, size_t i, int* out);
bool ArgBuffer(const Napi::CallbackInfo& info, size_t i, const char* name,
               Napi::Buffer<uint8_t>* out);
// Accepts a Buffer or null/undefined (then *present is false).
bool ArgOptBuffer(const Napi::CallbackInfo& info, size_t i, const char* name,
                  Napi::Buffer<uint8_t>* out, bool* present);
bool ArgObject(const Napi::CallbackInfo& info, size_t i, const char* name, Napi::Object* out);

// Object property readers: number (integral), number-or-bigint as u64, string, boolean.
bool PropInt(Napi::Env env, Napi::Object o, const char* key, bool required, int64_t def,
             int64_t* out);
bool PropU64(Napi::Env env, Napi::Object o, const char* key, bool required, uint64_t def,
             uint64_t* out);
bool PropString(Napi::Env env, Napi::Object o, const char* key, bool required, std::string* out,
                bool* present);
bool PropBool(Napi::Env env, Napi::Object o, const char* key, bool def, bool* out);
bool PropBuffer(Napi::Env env, Napi::Object o, const char* key, Napi::Buffer<uint8_t>* out);

// Number of possible CPUs (size of per-CPU map values), from /sys/devices/system/cpu/possible.
int PossibleCpus();

void RegisterBpf(Napi::Env env, Napi::Object exports);
void RegisterPerf(Napi::Env env, Napi::Object exports);
void RegisterWait(Napi::Env env, Napi::Object exports);
void RegisterSys(Napi::Env env, Napi::Object exports);
void RegisterUprobeMulti(Napi::Env env, Napi::Object exports);

}  // namespace dtn
