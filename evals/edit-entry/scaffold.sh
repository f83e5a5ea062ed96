#!/usr/bin/env bash
# The scratch data repo for this case (evals/lib/seed.sh).
exec bash "$(dirname "$0")/../lib/seed.sh" 
