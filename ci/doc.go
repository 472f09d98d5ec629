// Package ci holds the suite's CI integrations, which are not Go:
// ci/conformance.sh, the one script that runs the suite in a CI job from
// its image or its binary; the GitHub action at the repository's root
// (action.yml), which runs it; and the GitLab CI template
// (ci/gitlab/conformance.gitlab-ci.yml), which holds its commands. Its
// tests run the action's and the template's commands as those CIs do.
package ci
