package core

import (
	"path"
	"slices"
	"strings"

	"coderag/core/internal/lazyre"
)

// testDirs are directories that hold tests, and the helpers, test
// doubles and recorded outputs only tests use (Go's internal/testhelpers,
// testutil; mockery's and gomock's mocks, fakes; snapshots).
var testDirs = map[string]bool{
	"test": true, "tests": true, "__tests__": true, "e2e": true, "spec": true, "specs": true, "cypress": true,
	"testdata": true, "fixtures": true, "integration-tests": true, "testing": true,
	"testhelpers": true, "testhelper": true, "testutil": true, "testutils": true, "testsupport": true,
	"mocks": true, "mock": true, "fakes": true, "fake": true, "testdoubles": true, "__mocks__": true,
	// Snapshot tests' recorded outputs (Jest, cupaloy).
	"__snapshots__": true, ".snapshots": true,
	// A mock API server's routes and fixtures (ember-cli-mirage's and
	// MirageJS's mirage/), which a web UI's tests and demos run in place
	// of the real API.
	"mirage": true,
}

var (
	// testFileRE is a test file's name: Go's _test.go, a .test. or .spec.
	// file, pytest's test_*.py, JUnit's and xUnit's *Test(s).java/.cs/.kt.
	testFileRE = lazyre.New(`(?i)(_test\.[a-z]+|\.test\.[a-z]+|\.spec\.[a-z]+|^test_.*\.py|tests?\.(java|cs|kt)|_spec\.rb)$`)
	// testProjectRE is a directory named as a test project is: .NET's
	// Cart.Tests, Cart.UnitTests, Cart.IntegrationTests, and cart-tests,
	// cart_e2e_tests elsewhere.
	testProjectRE = lazyre.New(`(?i)[._-](unit|integration|functional|acceptance|component|e2e|api|load)?[._-]?tests?$|[._-]specs$`)
	// testDataRE is a numbered or qualified testdata directory, which Go
	// tools ignore as they do testdata: testdata2, testdata_v1.
	testDataRE = lazyre.New(`^testdata([0-9]+|[_-].+)$`)
)

// IsTestPath reports whether a path holds tests: a test file, or any file
// under a test directory or test project. Search gives such files a lower
// prior; the service graph ignores their calls, which go to fakes.
func IsTestPath(p string) bool {
	// Each pattern is tried only on a name that holds what it needs
	// (test, spec; a suffix test, tests or specs; the prefix testdata):
	// the search asks this of every candidate chunk.
	if base := strings.ToLower(path.Base(p)); (strings.Contains(base, "test") || strings.Contains(base, "spec")) && testFileRE.MatchString(base) {
		return true
	}
	for i, d := range strings.Split(strings.ToLower(path.Dir(p)), "/") {
		if testDirs[d] ||
			(strings.HasSuffix(d, "test") || strings.HasSuffix(d, "tests") || strings.HasSuffix(d, "specs")) && testProjectRE.MatchString(d) ||
			strings.HasPrefix(d, "testdata") && testDataRE.MatchString(d) {
			return true
		}
		// A repository's top-level integration/ is its integration test
		// suite (moby, containerd, cortex, traefik); deeper, a package
		// of that name is often product code (a library's integration
		// with a framework).
		if i == 0 && d == "integration" {
			return true
		}
	}
	return false
}

// exampleDirs are directories of example and tutorial code.
var exampleDirs = map[string]bool{
	"examples": true, "example": true, "_examples": true, "samples": true, "tutorials": true, "tutorial": true,
}

// IsExamplePath reports whether a path lies under a directory of examples
// or tutorials (examples/, samples/, tutorials/). Such code shows how to
// use a library or service: the service graph ignores its calls, routes
// and queues ("hello", "task_queue"), which the service does not make,
// unless a service is deployed from inside the examples directory.
func IsExamplePath(p string) bool { return InExampleDir(path.Dir(p)) }

// InExampleDir reports whether the directory dir is, or lies under, a
// directory of examples or tutorials.
func InExampleDir(dir string) bool {
	ds := strings.Split(strings.ToLower(dir), "/")
	for i, d := range ds {
		if i >= 2 && ds[i-2] == "src" && jvmSourceRoots[d] {
			// src/main/java/com/example/...: what follows a JVM source
			// root are the packages' folders, and com.example is the
			// name Spring Initializr and Maven archetypes give a
			// project's packages, not a folder of examples.
			return false
		}
		if exampleDirs[d] {
			return true
		}
	}
	return false
}

// jvmSourceRoots are the folders of a Maven or Gradle source set
// (src/main/java, src/test/kotlin) under which folders are packages.
var jvmSourceRoots = map[string]bool{"java": true, "kotlin": true, "scala": true, "groovy": true}

// toolingDirs are directories of CI and release tooling: what a
// repository's pipelines and maintainers run (GitHub Actions' scripts,
// Kubernetes projects' hack/), never the service itself.
var toolingDirs = map[string]bool{".github": true, ".circleci": true, ".buildkite": true, ".gitlab": true, "hack": true}

// IsToolingPath reports whether a path lies under a directory of CI or
// release tooling (.github/, .circleci/, .buildkite/, .gitlab/, hack/, a
// scripts/release/ folder): the calls its scripts make and the addresses
// their variables default to (a release build's SSH host, a CI check's
// metrics endpoint) are not the service's dependencies.
func IsToolingPath(p string) bool {
	ds := strings.Split(strings.ToLower(path.Dir(p)), "/")
	for i, d := range ds {
		if toolingDirs[d] || (d == "release" || d == "releases") && i > 0 && (ds[i-1] == "scripts" || ds[i-1] == "script") {
			return true
		}
	}
	return false
}

// DeclaresSystem reports whether the deploy file at p declares the
// system's own services: not one in a test folder (fixtures, e2e set-ups,
// test images: what tests run) nor a development container's
// (.devcontainer/: the developer's machine). The service graph makes
// nodes of the others only, and mentions are looked for of those only.
func DeclaresSystem(p string) bool {
	return !IsTestPath(p) && !strings.HasPrefix(p, ".devcontainer/") && !strings.Contains(p, "/.devcontainer/")
}

// NameAt is a service's name and the deploy file that declares it ("" for
// a node of the service graph).
type NameAt struct{ Name, File string }

// SystemNames returns the distinct names, sorted, of those declared
// outside tests and development containers (DeclaresSystem) or by the
// graph.
func SystemNames(names []NameAt) []string {
	var out []string
	for _, n := range names {
		if n.File == "" || DeclaresSystem(n.File) {
			out = append(out, n.Name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
