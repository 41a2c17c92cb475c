package runtimecheck

import "time"

// spinKernelName is the entry point in spinPTX.
const spinKernelName = "cachelint_spin"

// maxSpin bounds every kernel the probe runs: the PTX clamps its argument to this, so no
// bad argument can keep the GPU busy.
const maxSpin = 50 * time.Millisecond

// spinPTX is a one-thread kernel that busy-waits on %globaltimer (nanoseconds) for
// min(ns, 50 ms). It is PTX, JIT-compiled by the driver through cuModuleLoadData, so the
// probe needs no nvcc. sm_50 and PTX ISA 6.0 are old enough for any driver that can run
// PyTorch; %globaltimer exists since sm_30.
const spinPTX = `.version 6.0
.target sm_50
.address_size 64

.visible .entry cachelint_spin(.param .u64 ns)
{
	.reg .pred %p<2>;
	.reg .b64 %rd<6>;

	ld.param.u64 %rd1, [ns];
	min.u64 %rd1, %rd1, 50000000;
	mov.u64 %rd2, %globaltimer;
$L_spin:
	mov.u64 %rd3, %globaltimer;
	sub.u64 %rd4, %rd3, %rd2;
	setp.lt.u64 %p1, %rd4, %rd1;
	@%p1 bra $L_spin;
	ret;
}
`
