#!/usr/bin/env bash
# Set everything up (.venv) and run the demo on a simulated Oracle: ./scripts/demo.sh [demo options]
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
exec .venv/bin/oracdc demo "$@"
