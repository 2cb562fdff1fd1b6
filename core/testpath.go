package core

import (
	"path"
	"strings"

	"coderag/core/internal/lazyre"
)

// testDirs are directories that hold tests, and the helpers and test
// doubles only tests use (Go's internal/testhelpers, testutil; mockery's
// and gomock's mocks, fakes).
var testDirs = map[string]bool{
	"test": true, "tests": true, "__tests__": true, "e2e": true, "spec": true, "specs": true, "cypress": true,
	"testdata": true, "fixtures": true, "integration-tests": true, "testing": true,
	"testhelpers": true, "testhelper": true, "testutil": true, "testutils": true, "testsupport": true,
	"mocks": true, "mock": true, "fakes": true, "fake": true, "testdoubles": true, "__mocks__": true,
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
	if testFileRE.MatchString(path.Base(p)) {
		return true
	}
	for i, d := range strings.Split(strings.ToLower(path.Dir(p)), "/") {
		if testDirs[d] || testProjectRE.MatchString(d) || testDataRE.MatchString(d) {
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
	for _, d := range strings.Split(strings.ToLower(dir), "/") {
		if exampleDirs[d] {
			return true
		}
	}
	return false
}
