#!/usr/bin/env bash
# Builds a one-test harness into a Porcupine checkout that checks one Jepsen
# text log with Porcupine's own etcd model and log parser (both in its
# porcupine_test.go), for timing Porcupine beside isocheck on the same
# history. Needs Go (Debian's golang-go).
#   scripts/porcupine-check.sh PORCUPINE_CHECKOUT build      # once: PORCUPINE_CHECKOUT/porc-file.test
#   PORC_FILE=history.log PORCUPINE_CHECKOUT/porc-file.test -test.run '^TestFile$' -test.v
set -euo pipefail
dir=${1:?a Porcupine checkout}
[ "${2:-}" = build ] || { sed -n '2,8p' "$0" >&2; exit 2; }
cat >"$dir/zz_file_test.go" <<'GO'
package porcupine

import (
	"fmt"
	"os"
	"testing"
)

// TestFile checks the log PORC_FILE names with the etcd model.
func TestFile(t *testing.T) {
	path := os.Getenv("PORC_FILE")
	if path == "" {
		t.Skip("PORC_FILE is not set")
	}
	fmt.Println("linearizable:", CheckEvents(etcdModel, parseJepsenLog(path)))
}
GO
(cd "$dir" && go test -c -o porc-file.test .)
