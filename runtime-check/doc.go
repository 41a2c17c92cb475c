// Package runtimecheck implements `cachelint probe`: it measures, through the CUDA driver
// API, what a CPU-GPU synchronisation and a caching-allocator refill cost on the user's own
// GPU, and turns that into an estimate of one torch.cuda.empty_cache() call for a workload.
//
// libcuda.so.1 is opened at run time with purego, so the cachelint binary never links CUDA,
// needs no CUDA toolkit and no cgo, and still builds and runs on machines without a GPU (the
// probe then fails with one line and exit code 2). Every driver entry point the probe uses
// sits behind the Driver interface so that tests drive the probe with a simulated GPU.
//
// The probe's result, the cost profile, is written with --json and read back by
// `cachelint check --cost-profile FILE` (LoadProfile, CostProfile.Costs; internal/output words the line).
package runtimecheck
