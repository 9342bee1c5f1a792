// bpf(2): maps, programs, BTF. Each function is one system call (plus a size check that keeps the
// kernel from writing past a JavaScript Buffer).
#include <linux/bpf.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "common.h"

namespace dtn {
namespace {

long SysBpf(int cmd, union bpf_attr* attr) {
  return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

uint64_t Ptr(const void* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); }

std::string What(const char* cmd) { return std::string("bpf(") + cmd + ")"; }

// What userspace exchanges per element with this map, for checking Buffer lengths.
struct MapShape {
  uint32_t type;
  uint32_t keySize;
  uint32_t valueSize;  // per element as copied to/from userspace (all CPUs for per-CPU maps)
};

bool IsPerCpu(uint32_t type) {
  return type == BPF_MAP_TYPE_PERCPU_HASH || type == BPF_MAP_TYPE_PERCPU_ARRAY ||
         type == BPF_MAP_TYPE_LRU_PERCPU_HASH || type == BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE;
}

// Errors are reported under the command the caller asked for: the query is an implementation detail.
bool GetShape(Napi::Env env, int fd, const char* cmd, MapShape* shape) {
  struct bpf_map_info info;
  memset(&info, 0, sizeof info);
  union bpf_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.info.bpf_fd = fd;
  attr.info.info_len = sizeof info;
  attr.info.info = Ptr(&info);
  if (SysBpf(BPF_OBJ_GET_INFO_BY_FD, &attr) < 0) {
    // This query says EBADFD for a closed fd where the map commands say EBADF.
    ThrowErrno(env, What(cmd), errno == EBADFD ? EBADF : errno);
    return false;
  }
  shape->type = info.type;
  shape->keySize = info.key_size;
  shape->valueSize = IsPerCpu(info.type)
                         ? ((info.value_size + 7u) & ~7u) * static_cast<uint32_t>(PossibleCpus())
                         : info.value_size;
  return true;
}

bool CheckLen(Napi::Env env, const char* what, size_t have, uint64_t need) {
  if (have < need) {
    ThrowRange(env, std::string(what) + " buffer too small: " + std::to_string(have) + " < " +
                        std::to_string(need) + " bytes");
    return false;
  }
  return true;
}

Napi::Value MapCreate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o;
  if (!ArgObject(info, 0, "options", &o)) return env.Undefined();
  int64_t type, keySize, valueSize, maxEntries, flags, innerMapFd, btfFd, btfKey, btfValue;
  std::string name;
  bool hasName = false;
  if (!PropInt(env, o, "type", true, 0, &type) || !PropInt(env, o, "keySize", true, 0, &keySize) ||
      !PropInt(env, o, "valueSize", true, 0, &valueSize) ||
      !PropInt(env, o, "maxEntries", true, 0, &maxEntries) ||
      !PropInt(env, o, "flags", false, 0, &flags) ||
      !PropInt(env, o, "innerMapFd", false, 0, &innerMapFd) ||
      !PropInt(env, o, "btfFd", false, 0, &btfFd) ||
      !PropInt(env, o, "btfKeyTypeId", false, 0, &btfKey) ||
      !PropInt(env, o, "btfValueTypeId", false, 0, &btfValue) ||
      !PropString(env, o, "name", false, &name, &hasName))
    return env.Undefined();

  union bpf_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.map_type = static_cast<uint32_t>(type);
  attr.key_size = static_cast<uint32_t>(keySize);
  attr.value_size = static_cast<uint32_t>(valueSize);
  attr.max_entries = static_cast<uint32_t>(maxEntries);
  attr.map_flags = static_cast<uint32_t>(flags);
  attr.inner_map_fd = static_cast<uint32_t>(innerMapFd);
  if (hasName) strncpy(attr.map_name, name.c_str(), sizeof attr.map_name - 1);
  if (btfFd > 0) {
    attr.btf_fd = static_cast<uint32_t>(btfFd);
    attr.btf_key_type_id = static_cast<uint32_t>(btfKey);
    attr.btf_value_type_id = static_cast<uint32_t>(btfValue);
  }
  // Map and program fds are always created close-on-exec by the kernel.
  long fd = SysBpf(BPF_MAP_CREATE, &attr);
  if (fd < 0) {
    ThrowErrno(env, What("BPF_MAP_CREATE"), errno);
    return env.Undefined();
  }
  return Napi::Number::New(env, static_cast<double>(fd));
}

// Shared by lookup/update/delete: returns the syscall result, errno preserved.
long ElemOp(int cmd, int fd, void* key, void* value, uint64_t flags) {
  union bpf_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.map_fd = static_cast<uint32_t>(fd);
  attr.key = Ptr(key);
  attr.value = Ptr(value);
  attr.flags = flags;
  return SysBpf(cmd, &attr);
}

// The arguments of lookup and update: fd, key, value, optional flags; buffers checked against
// the map's own key and value sizes so the kernel never writes past them.
struct ElemArgs {
  int fd;
  Napi::Buffer<uint8_t> key, value;
  int64_t flags;
};

static bool ArgElem(const Napi::CallbackInfo& info, const char* cmd, ElemArgs* a) {
  MapShape shape;
  return ArgFd(info, 0, &a->fd) && ArgBuffer(info, 1, "key", &a->key) &&
         ArgBuffer(info, 2, "value", &a->value) && ArgOptInt(info, 3, "flags", 0, &a->flags) &&
         GetShape(info.Env(), a->fd, cmd, &shape) &&
         CheckLen(info.Env(), "key", a->key.Length(), shape.keySize) &&
         CheckLen(info.Env(), "value", a->value.Length(), shape.valueSize);
}

Napi::Value MapLookup(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ElemArgs a;
  if (!ArgElem(info, "BPF_MAP_LOOKUP_ELEM", &a)) return env.Undefined();
  if (ElemOp(BPF_MAP_LOOKUP_ELEM, a.fd, a.key.Data(), a.value.Data(), a.flags) < 0) {
    if (errno == ENOENT) return Napi::Boolean::New(env, false);
    ThrowErrno(env, What("BPF_MAP_LOOKUP_ELEM"), errno);
    return env.Undefined();
  }
  return Napi::Boolean::New(env, true);
}

Napi::Value MapUpdate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ElemArgs a;
  if (!ArgElem(info, "BPF_MAP_UPDATE_ELEM", &a)) return env.Undefined();
  if (ElemOp(BPF_MAP_UPDATE_ELEM, a.fd, a.key.Data(), a.value.Data(), a.flags) < 0)
    ThrowErrno(env, What("BPF_MAP_UPDATE_ELEM"), errno);
  return env.Undefined();
}

// BPF_MAP_LOOKUP_AND_DELETE_ELEM: the value as it was when the entry went, so nothing added
// between a read and a delete is lost (trunc() carries it over).
Napi::Value MapLookupAndDelete(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ElemArgs a;
  if (!ArgElem(info, "BPF_MAP_LOOKUP_AND_DELETE_ELEM", &a)) return env.Undefined();
  if (ElemOp(BPF_MAP_LOOKUP_AND_DELETE_ELEM, a.fd, a.key.Data(), a.value.Data(), a.flags) < 0) {
    if (errno == ENOENT) return Napi::Boolean::New(env, false);
    ThrowErrno(env, What("BPF_MAP_LOOKUP_AND_DELETE_ELEM"), errno);
    return env.Undefined();
  }
  return Napi::Boolean::New(env, true);
}

Napi::Value MapDelete(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd;
  Napi::Buffer<uint8_t> key;
  MapShape shape;
  if (!ArgFd(info, 0, &fd) || !ArgBuffer(info, 1, "key", &key) ||
      !GetShape(env, fd, "BPF_MAP_DELETE_ELEM", &shape) ||
      !CheckLen(env, "key", key.Length(), shape.keySize))
    return env.Undefined();
  if (ElemOp(BPF_MAP_DELETE_ELEM, fd, key.Data(), nullptr, 0) < 0) {
    if (errno == ENOENT) return Napi::Boolean::New(env, false);
    ThrowErrno(env, What("BPF_MAP_DELETE_ELEM"), errno);
    return env.Undefined();
  }
  return Napi::Boolean::New(env, true);
}

Napi::Value MapNextKey(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd;
  Napi::Buffer<uint8_t> key, next;
  bool hasKey = false;
  MapShape shape;
  if (!ArgFd(info, 0, &fd) || !ArgOptBuffer(info, 1, "key", &key, &hasKey) ||
      !ArgBuffer(info, 2, "next", &next) || !GetShape(env, fd, "BPF_MAP_GET_NEXT_KEY", &shape) ||
      (hasKey && !CheckLen(env, "key", key.Length(), shape.keySize)) ||
      !CheckLen(env, "next", next.Length(), shape.keySize))
    return env.Undefined();
  // A null key asks for the first key.
  if (ElemOp(BPF_MAP_GET_NEXT_KEY, fd, hasKey ? key.Data() : nullptr, next.Data(), 0) < 0) {
    if (errno == ENOENT) return Napi::Boolean::New(env, false);
    ThrowErrno(env, What("BPF_MAP_GET_NEXT_KEY"), errno);
    return env.Undefined();
  }
  return Napi::Boolean::New(env, true);
}

Napi::Value MapLookupBatch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd;
  Napi::Buffer<uint8_t> inBatch, outBatch, keys, values;
  bool hasIn = false;
  int64_t count, elemFlags;
  MapShape shape;
  if (!ArgFd(info, 0, &fd) || !ArgOptBuffer(info, 1, "inBatch", &inBatch, &hasIn) ||
      !ArgBuffer(info, 2, "outBatch", &outBatch) || !ArgBuffer(info, 3, "keys", &keys) ||
      !ArgBuffer(info, 4, "values", &values) || !ArgInt(info, 5, "count", &count) ||
      !ArgOptInt(info, 6, "elemFlags", 0, &elemFlags))
    return env.Undefined();
  if (count <= 0 || count > UINT32_MAX) {
    ThrowRange(env, "count must be a positive 32-bit integer");
    return env.Undefined();
  }
  if (!GetShape(env, fd, "BPF_MAP_LOOKUP_BATCH", &shape)) return env.Undefined();
  // The batch token is a u32 bucket index for hash maps and a key for the others.
  uint64_t tokenSize = shape.keySize > 4 ? shape.keySize : 4;
  if ((hasIn && !CheckLen(env, "inBatch", inBatch.Length(), tokenSize)) ||
      !CheckLen(env, "outBatch", outBatch.Length(), tokenSize) ||
      !CheckLen(env, "keys", keys.Length(), static_cast<uint64_t>(count) * shape.keySize) ||
      !CheckLen(env, "values", values.Length(), static_cast<uint64_t>(count) * shape.valueSize))
    return env.Undefined();

  union bpf_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.batch.map_fd = static_cast<uint32_t>(fd);
  attr.batch.in_batch = hasIn ? Ptr(inBatch.Data()) : 0;
  attr.batch.out_batch = Ptr(outBatch.Data());
  attr.batch.keys = Ptr(keys.Data());
  attr.batch.values = Ptr(values.Data());
  attr.batch.count = static_cast<uint32_t>(count);
  attr.batch.elem_flags = static_cast<uint64_t>(elemFlags);
  bool more = true;
  if (SysBpf(BPF_MAP_LOOKUP_BATCH, &attr) < 0) {
    // ENOENT: the walk reached the end; attr.batch.count still holds what this call returned.
    if (errno != ENOENT) {
      ThrowErrno(env, What("BPF_MAP_LOOKUP_BATCH"), errno);
      return env.Undefined();
    }
    more = false;
  }
  Napi::Object result = Napi::Object::New(env);
  result.Set("count", Napi::Number::New(env, attr.batch.count));
  result.Set("more", Napi::Boolean::New(env, more));
  return result;
}

Napi::Value MapFreeze(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd;
  if (!ArgFd(info, 0, &fd)) return env.Undefined();
  union bpf_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.map_fd = static_cast<uint32_t>(fd);
  if (SysBpf(BPF_MAP_FREEZE, &attr) < 0) ThrowErrno(env, What("BPF_MAP_FREEZE"), errno);
  return env.Undefined();
}

// Verifier logs of rejected programs are kept whole up to this size.
constexpr uint32_t kRetryLogSize = 4u << 20;

Napi::Value ProgLoad(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o;
  Napi::Buffer<uint8_t> insns;
  int64_t type, expectedAttachType, logLevel, logSize, flags, attachBtfId, kernVersion;
  std::string license, name;
  bool hasName = false;
  if (!ArgObject(info, 0, "options", &o) || !PropInt(env, o, "type", true, 0, &type) ||
      !PropBuffer(env, o, "insns", &insns) ||
      !PropString(env, o, "license", true, &license, nullptr) ||
      !PropString(env, o, "name", false, &name, &hasName) ||
      !PropInt(env, o, "expectedAttachType", false, 0, &expectedAttachType) ||
      !PropInt(env, o, "logLevel", false, 0, &logLevel) ||
      !PropInt(env, o, "logSize", false, 1u << 20, &logSize) ||
      !PropInt(env, o, "flags", false, 0, &flags) ||
      !PropInt(env, o, "attachBtfId", false, 0, &attachBtfId) ||
      !PropInt(env, o, "kernVersion", false, 0, &kernVersion))
    return env.Undefined();
  if (insns.Length() == 0 || insns.Length() % sizeof(struct bpf_insn) != 0) {
    ThrowRange(env, "insns length must be a positive multiple of 8");
    return env.Undefined();
  }
  if (logSize < 128 || logSize > (UINT32_MAX >> 2)) {
    ThrowRange(env, "logSize must be between 128 and 2^30-1");
    return env.Undefined();
  }

  std::vector<char> log;
  auto attempt = [&](uint32_t level, uint32_t size) -> long {
    union bpf_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.prog_type = static_cast<uint32_t>(type);
    attr.insn_cnt = static_cast<uint32_t>(insns.Length() / sizeof(struct bpf_insn));
    attr.insns = Ptr(insns.Data());
    attr.license = Ptr(license.c_str());
    attr.kern_version = static_cast<uint32_t>(kernVersion);
    attr.prog_flags = static_cast<uint32_t>(flags);
    attr.expected_attach_type = static_cast<uint32_t>(expectedAttachType);
    attr.attach_btf_id = static_cast<uint32_t>(attachBtfId);
    if (hasName) strncpy(attr.prog_name, name.c_str(), sizeof attr.prog_name - 1);
    if (level > 0) {
      log.assign(size, '\0');
      attr.log_level = level;
      attr.log_size = size;
      attr.log_buf = Ptr(log.data());
    }
    long fd;
    // The verifier gives up with EAGAIN when a signal is pending; simply try again.
    int tries = 0;
    do {
      fd = SysBpf(BPF_PROG_LOAD, &attr);
    } while (fd < 0 && errno == EAGAIN && ++tries < 5);
    return fd;
  };

  long fd = attempt(static_cast<uint32_t>(logLevel), static_cast<uint32_t>(logSize));
  if (fd >= 0) {
    // An accepted program's log goes to the caller's onLog, when it asked for one (-x bpflog).
    Napi::Value onLog = o.Get("onLog");
    if (logLevel > 0 && onLog.IsFunction())
      onLog.As<Napi::Function>().Call({Napi::String::New(env, log.data(), strnlen(log.data(), log.size()))});
    return Napi::Number::New(env, static_cast<double>(fd));
  }
  int err = errno;
  if (logLevel == 0) {
    // Load again with a log only to explain the failure; keep the first errno.
    long again = attempt(1, kRetryLogSize);
    if (again >= 0) return Napi::Number::New(env, static_cast<double>(again));
  }
  Napi::Error e = ErrnoError(env, What("BPF_PROG_LOAD"), err);
  e.Value().Set("log", Napi::String::New(env, log.data(), strnlen(log.data(), log.size())));
  e.ThrowAsJavaScriptException();
  return env.Undefined();
}

Napi::Value ProgTestRun(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd;
  Napi::Buffer<uint8_t> ctx;
  bool hasCtx = false;
  int64_t flags, cpu;
  if (!ArgFd(info, 0, &fd) || !ArgOptBuffer(info, 1, "ctx", &ctx, &hasCtx) ||
      !ArgOptInt(info, 2, "flags", 0, &flags) || !ArgOptInt(info, 3, "cpu", 0, &cpu))
    return env.Undefined();
  union bpf_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.test.prog_fd = static_cast<uint32_t>(fd);
  if (hasCtx && ctx.Length() > 0) {
    attr.test.ctx_in = Ptr(ctx.Data());
    attr.test.ctx_size_in = static_cast<uint32_t>(ctx.Length());
  }
  attr.test.flags = static_cast<uint32_t>(flags);
  attr.test.cpu = static_cast<uint32_t>(cpu);
  if (SysBpf(BPF_PROG_TEST_RUN, &attr) < 0) {
    ThrowErrno(env, What("BPF_PROG_TEST_RUN"), errno);
    return env.Undefined();
  }
  return Napi::Number::New(env, attr.test.retval);
}

// BPF_RAW_TRACEPOINT_OPEN: a raw tracepoint program on the tracepoint `name`; returns the fd
// whose close detaches it.
Napi::Value RawTracepointOpen(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsString()) {
    ThrowType(env, "name must be a string");
    return env.Undefined();
  }
  std::string name = info[0].As<Napi::String>().Utf8Value();
  int progFd;
  if (!ArgFd(info, 1, &progFd)) return env.Undefined();
  union bpf_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.raw_tracepoint.name = Ptr(name.c_str());
  attr.raw_tracepoint.prog_fd = static_cast<uint32_t>(progFd);
  long fd = SysBpf(BPF_RAW_TRACEPOINT_OPEN, &attr);
  if (fd < 0) {
    ThrowErrno(env, What("BPF_RAW_TRACEPOINT_OPEN") + " " + name, errno);
    return env.Undefined();
  }
  return Napi::Number::New(env, static_cast<double>(fd));
}

Napi::Value BtfLoad(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Buffer<uint8_t> data;
  if (!ArgBuffer(info, 0, "data", &data)) return env.Undefined();
  std::vector<char> log;
  auto attempt = [&](bool withLog) -> long {
    union bpf_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.btf = Ptr(data.Data());
    attr.btf_size = static_cast<uint32_t>(data.Length());
    if (withLog) {
      log.assign(1u << 20, '\0');
      attr.btf_log_buf = Ptr(log.data());
      attr.btf_log_size = static_cast<uint32_t>(log.size());
      attr.btf_log_level = 1;
    }
    return SysBpf(BPF_BTF_LOAD, &attr);
  };
  long fd = attempt(false);
  if (fd >= 0) return Napi::Number::New(env, static_cast<double>(fd));
  int err = errno;
  long again = attempt(true);
  if (again >= 0) return Napi::Number::New(env, static_cast<double>(again));
  Napi::Error e = ErrnoError(env, What("BPF_BTF_LOAD"), err);
  e.Value().Set("log", Napi::String::New(env, log.data(), strnlen(log.data(), log.size())));
  e.ThrowAsJavaScriptException();
  return env.Undefined();
}

// Walks the kernel's object ids (to check that nothing is left behind). null at the end.
Napi::Value GetNextId(const Napi::CallbackInfo& info, int cmd, const char* name) {
  Napi::Env env = info.Env();
  int64_t start;
  if (!ArgInt(info, 0, "startId", &start)) return env.Undefined();
  union bpf_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.start_id = static_cast<uint32_t>(start);
  if (SysBpf(cmd, &attr) < 0) {
    if (errno == ENOENT) return env.Null();
    ThrowErrno(env, What(name), errno);
    return env.Undefined();
  }
  return Napi::Number::New(env, attr.next_id);
}

Napi::Value ProgGetNextId(const Napi::CallbackInfo& info) {
  return GetNextId(info, BPF_PROG_GET_NEXT_ID, "BPF_PROG_GET_NEXT_ID");
}

Napi::Value MapGetNextId(const Napi::CallbackInfo& info) {
  return GetNextId(info, BPF_MAP_GET_NEXT_ID, "BPF_MAP_GET_NEXT_ID");
}

// One field of a program's bpf_prog_info: verified_insns or recursion_misses.
static Napi::Value ProgInfoField(const Napi::CallbackInfo& info, bool misses) {
  Napi::Env env = info.Env();
  int64_t fd;
  if (!ArgInt(info, 0, "fd", &fd)) return env.Undefined();
  struct bpf_prog_info pi;
  memset(&pi, 0, sizeof pi);
  union bpf_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.info.bpf_fd = static_cast<uint32_t>(fd);
  attr.info.info_len = sizeof pi;
  attr.info.info = Ptr(&pi);
  if (SysBpf(BPF_OBJ_GET_INFO_BY_FD, &attr) < 0) {
    ThrowErrno(env, What("BPF_OBJ_GET_INFO_BY_FD"), errno);
    return env.Undefined();
  }
  return Napi::Number::New(env, static_cast<double>(misses ? pi.recursion_misses : pi.verified_insns));
}

// BPF_OBJ_GET_INFO_BY_FD on a program: the instructions the verifier processed to accept it.
Napi::Value ProgVerifiedInsns(const Napi::CallbackInfo& info) {
  return ProgInfoField(info, false);
}

// The same for the firings the kernel skipped because a BPF program already ran on that CPU.
Napi::Value ProgRecursionMisses(const Napi::CallbackInfo& info) {
  return ProgInfoField(info, true);
}

}  // namespace

void RegisterBpf(Napi::Env env, Napi::Object exports) {
  exports.Set("mapCreate", Napi::Function::New(env, MapCreate, "mapCreate"));
  exports.Set("mapLookup", Napi::Function::New(env, MapLookup, "mapLookup"));
  exports.Set("mapUpdate", Napi::Function::New(env, MapUpdate, "mapUpdate"));
  exports.Set("mapDelete", Napi::Function::New(env, MapDelete, "mapDelete"));
  exports.Set("mapLookupAndDelete", Napi::Function::New(env, MapLookupAndDelete, "mapLookupAndDelete"));
  exports.Set("mapNextKey", Napi::Function::New(env, MapNextKey, "mapNextKey"));
  exports.Set("mapLookupBatch", Napi::Function::New(env, MapLookupBatch, "mapLookupBatch"));
  exports.Set("mapFreeze", Napi::Function::New(env, MapFreeze, "mapFreeze"));
  exports.Set("progLoad", Napi::Function::New(env, ProgLoad, "progLoad"));
  exports.Set("progTestRun", Napi::Function::New(env, ProgTestRun, "progTestRun"));
  exports.Set("rawTracepointOpen", Napi::Function::New(env, RawTracepointOpen, "rawTracepointOpen"));
  exports.Set("btfLoad", Napi::Function::New(env, BtfLoad, "btfLoad"));
  exports.Set("progGetNextId", Napi::Function::New(env, ProgGetNextId, "progGetNextId"));
  exports.Set("mapGetNextId", Napi::Function::New(env, MapGetNextId, "mapGetNextId"));
  exports.Set("progVerifiedInsns", Napi::Function::New(env, ProgVerifiedInsns, "progVerifiedInsns"));
  exports.Set("progRecursionMisses", Napi::Function::New(env, ProgRecursionMisses, "progRecursionMisses"));
}

}  // namespace dtn
