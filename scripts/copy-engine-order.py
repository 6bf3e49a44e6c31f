#!/usr/bin/env python3
"""How one GPU orders host-to-device copies: the assumption behind a plan's FIFO link channels
and its chunked Prefetches (src/plan/chunks.h). A 16 KiB copy (a host crossing) is issued 1 ms
into a 128 MiB copy (a weight's Prefetch), on another stream or on the same one; each case's
median of 7 is printed. Needs only the NVIDIA driver (libcuda through ctypes), no toolkit:
    python3 scripts/copy-engine-order.py
A plan runs each link channel as one stream (src/executor/cuda_schedule.h), so its transfers
keep the plan's order whatever the copy engines do with several streams."""
import ctypes as C
import time

L = C.CDLL("libcuda.so.1")
P, U = C.c_void_p, C.c_uint64
LARGE, SMALL = 128 << 20, 16 << 10


def ok(status):
    if status != 0:
        raise SystemExit(f"copy-engine-order: CUDA driver error {status}")


def event():
    e = P()
    ok(L.cuEventCreate(C.byref(e), 0))
    return e


def elapsed_ms(a, b):
    f = C.c_float()
    ok(L.cuEventElapsedTime(C.byref(f), a, b))
    return f.value


ok(L.cuInit(0))
device, context = C.c_int(), P()
ok(L.cuDeviceGet(C.byref(device), 0))
ok(L.cuCtxCreate_v2(C.byref(context), 0, device))
host_large, host_small, dev_large, dev_small = P(), P(), U(), U()
ok(L.cuMemAllocHost_v2(C.byref(host_large), U(LARGE)))
ok(L.cuMemAllocHost_v2(C.byref(host_small), U(SMALL)))
ok(L.cuMemAlloc_v2(C.byref(dev_large), U(LARGE)))
ok(L.cuMemAlloc_v2(C.byref(dev_small), U(SMALL)))
large_stream, small_stream = P(), P()
ok(L.cuStreamCreate(C.byref(large_stream), 1))  # CU_STREAM_NON_BLOCKING
ok(L.cuStreamCreate(C.byref(small_stream), 1))


def trial(chunks, same_stream):
    start, small_done, large_done = event(), event(), event()
    ok(L.cuCtxSynchronize())
    ok(L.cuEventRecord(start, large_stream))
    size = LARGE // chunks if chunks else 0
    for c in range(chunks):
        ok(L.cuMemcpyHtoDAsync_v2(U(dev_large.value + c * size), P(host_large.value + c * size),
                                  U(size), large_stream))
    issued = time.perf_counter()
    while time.perf_counter() - issued < 0.001:
        pass
    stream = large_stream if same_stream else small_stream
    ok(L.cuMemcpyHtoDAsync_v2(dev_small, host_small, U(SMALL), stream))
    ok(L.cuEventRecord(small_done, stream))
    ok(L.cuEventRecord(large_done, large_stream))
    ok(L.cuCtxSynchronize())
    return elapsed_ms(start, small_done), elapsed_ms(start, large_done)


trial(1, False)  # warm-up
for chunks, same, name in [(0, False, "alone"), (1, False, "other stream, behind whole"),
                           (8, False, "other stream, 8 chunks queued"),
                           (1, True, "same stream, behind whole")]:
    small_ms, large_ms = sorted(trial(chunks, same) for _ in range(7))[3]
    print(f"{name:32} small done {small_ms:.3f} ms, large done {large_ms:.3f} ms (issued at ~1 ms)")
