#!/bin/sh
# Runs the Event Service conformance suite in a CI job, from its image or
# its binary. The GitHub action (action.yml) runs this script; the GitLab
# CI template (ci/gitlab/conformance.gitlab-ci.yml) holds its commands,
# from `set -eu` on, word for word (a test keeps the two the same).
#
# Everything comes from the environment, so that no secret is on a command
# line that CI logs:
#
#   BASE_URL, CONTROL_URL, READ_ONLY and the CONFORMANCE_* variables, as
#       the suite reads them (docs/running-against-a-deployment.md); one
#       set but empty (an input left empty) is unset, for the suite's
#       default. CONFORMANCE_REPORT_DIR: the reports (default reports).
#   SUITE_MODE           image (the default) or binary
#   SUITE_IMAGE          image mode: the suite's image, such as
#                        ghcr.io/OWNER/conformance:TAG (make image builds it)
#   CONTAINER_ENGINE     image mode: docker (the default) or podman
#   CONTAINER_RUN_FLAGS  image mode: more flags for `run`, such as
#                        --network host (a target on the job's machine), or
#                        on a restricted machine: --runtime runc
#                        --ulimit nofile=65536:65536 --ulimit nproc=32768:32768
#   SUITE_BINARY         binary mode: the suite's binary (default:
#                        conformance, on PATH)
#
# (SUITE_*, not CONFORMANCE_*: the suite itself reads none of them.)
#
# In image mode the variables that are set are passed by name (-e NAME,
# never NAME=value), the report folder is mounted at /reports, and the
# files the variables name (baseline, CA, event body) are mounted
# read-only. The exit status is the suite's (docs: 0 passed, 1 failed, 2
# did not start, 3 throttled, 4 unreachable); with GITHUB_OUTPUT set, it
# is also the step's output exit-code.
set -eu
vars="BASE_URL CONTROL_URL READ_ONLY HTTPS_PROXY HTTP_PROXY NO_PROXY https_proxy http_proxy no_proxy
  CONFORMANCE_CLIENT_ID CONFORMANCE_CLIENT_SECRET CONFORMANCE_USERNAME CONFORMANCE_PASSWORD
  CONFORMANCE_OTHER_USERNAME CONFORMANCE_OTHER_PASSWORD CONFORMANCE_CONTROL_TOKEN CONFORMANCE_TAGS
  CONFORMANCE_CONCURRENCY CONFORMANCE_RETRIES CONFORMANCE_TIMEOUT CONFORMANCE_MAX_ANSWER CONFORMANCE_FAIL_ON_NOT_RUN CONFORMANCE_SLOW
  CONFORMANCE_EXPECTED_FAILURES CONFORMANCE_CA_FILE CONFORMANCE_EVENT_FILE
  CONFORMANCE_EXPLORE CONFORMANCE_SEED CONFORMANCE_MAX_ACTIONS CONFORMANCE_MAX_EVENTS CONFORMANCE_FAILED_LOGINS"
for v in $vars; do
  eval "[ -n \"\${$v:-}\" ]" || unset "$v"
done
reports="${CONFORMANCE_REPORT_DIR:-reports}"
mkdir -p "$reports"
status=0
case "${SUITE_MODE:-image}" in
binary)
  CONFORMANCE_REPORT_DIR="$reports" "${SUITE_BINARY:-conformance}" || status=$?
  ;;
image)
  if [ -z "${SUITE_IMAGE:-}" ]; then
    echo "conformance: no image: set SUITE_IMAGE (the action's input image), such as ghcr.io/OWNER/conformance:TAG, or the binary mode" >&2
    status=2
  else
    # The suite's user in the image (65532) writes the reports.
    chmod a+rwx "$reports"
    set -- run --rm -v "$(cd "$reports" && pwd):/reports" -e CONFORMANCE_REPORT_DIR=/reports
    for v in $vars; do
      eval "[ -n \"\${$v+set}\" ]" || continue
      case "$v" in
      CONFORMANCE_EXPECTED_FAILURES | CONFORMANCE_CA_FILE | CONFORMANCE_EVENT_FILE)
        eval "file=\$$v"
        if [ ! -f "$file" ]; then
          echo "conformance: $v names $file, which is not a file" >&2
          status=2
          break
        fi
        set -- "$@" -v "$(cd "$(dirname "$file")" && pwd)/$(basename "$file"):/input/$v:ro" -e "$v=/input/$v"
        ;;
      *) set -- "$@" -e "$v" ;;
      esac
    done
    if [ "$status" = 0 ]; then
      set -f
      "${CONTAINER_ENGINE:-docker}" "$@" ${CONTAINER_RUN_FLAGS:-} "$SUITE_IMAGE" || status=$?
      set +f
    fi
  fi
  ;;
*)
  echo "conformance: SUITE_MODE is \"$SUITE_MODE\": want image or binary" >&2
  status=2
  ;;
esac
if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "exit-code=$status" >>"$GITHUB_OUTPUT"; fi
exit "$status"
