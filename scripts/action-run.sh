#!/usr/bin/env bash
# The Action's check step (action.yml), run in the working-directory input: cachelint in
# the github format. cachelint writes annotation paths relative to $GITHUB_WORKSPACE (the
# repository root), as the runner reads them, so a working-directory below the root still
# annotates the right files. CACHELINT_ARGS is the args input, split on whitespace and
# never run as shell code.
set -euo pipefail
read -r -a args <<<"${CACHELINT_ARGS:-.}"
exec cachelint check --format github "${args[@]}"
