# Sourced by run.sh, windows.sh and pooled.sh (from the repository root): start_run LOG makes
# the results folder D, names the cross-built binary CL, sends all output to $OUT/LOG too,
# prints the device, driver and torch the run is on, and enters bench/gpu/trace.
start_run() {
  D=$(mktemp -d)
  CL=$PWD/.devbin/cachelint
  exec > >(tee "$OUT/$1") 2>&1
  export PYTHONUNBUFFERED=1
  nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv
  python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)'
  cd bench/gpu/trace || exit 2
}
