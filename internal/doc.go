// Package internal holds what the reference server and the suite share and
// no user of the project imports: the masking of secrets (redact), the
// version of a binary (version), the documentation page's generator
// (docsite) and headless Chromium for the tests of pages (browsertest).
package internal
