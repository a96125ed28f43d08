// Package images builds rbx's base images locally, without a registry: each
// recipe produces a root filesystem tarball that is imported through the
// Engine API and labelled so that a changed recipe triggers a rebuild.
package images

import (
	"context"
	"io"
	"slices"
	"strings"
)

// Label keys set on every image built from a recipe.
const (
	LabelRecipe        = "rbx.recipe"
	LabelRecipeVersion = "rbx.recipe.version"
	// LabelRecipeDigest is set on toolchain images: the SHA-256 of their
	// build context and of their base image's ID, so a changed Dockerfile or
	// a rebuilt base triggers a rebuild.
	LabelRecipeDigest = "rbx.recipe.digest"
)

// defaultPath is the PATH every recipe image gets; imported images have no
// config, so without it even `sh` would not be found by exec.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// Recipe describes how one base image is built.
type Recipe struct {
	// Name is the full image reference, e.g. "rbx/busybox:latest".
	Name string
	// Description is one line for `rbx images list`.
	Description string
	// Version is bumped whenever the recipe's output changes; an existing
	// image labelled with an older version is rebuilt.
	Version int
	// Changes are Dockerfile instructions (ENV, CMD, WORKDIR...) applied at
	// import, as with `docker import --change`.
	Changes []string

	// Provides names the toolchains a toolchain image has, with their
	// versions ("go": "1.21", "npm:jest": "29"...): the task importer
	// replaces a Dockerfile line that downloads one of them by the image's
	// own. Toolchain images also provide what their base provides.
	Provides map[string]string

	// Base is the recipe image a toolchain recipe builds on ("" for a
	// rootfs recipe); it is built first when missing.
	Base string

	// source returns the rootfs tarball; the caller closes it.
	source func(ctx context.Context, b *Builder, r Recipe) (io.ReadCloser, error)
	// context is the toolchain recipe's build context under recipes/ in
	// the embedded files (a Dockerfile FROM Base, and what it copies).
	context string
}

var recipes = []Recipe{
	{
		Name:        "rbx/busybox:latest",
		Description: "static busybox with its applets; tiny and fast, for tests",
		// 2: /etc/shadow (0640), which a user other than root may not read.
		Version: 2,
		Changes: []string{"ENV PATH=" + defaultPath, `CMD ["sh"]`, "WORKDIR /"},
		source:  busyboxSource,
	},
	{
		Name:        "rbx/debian:bookworm",
		Description: "Debian bookworm minbase with bash, python3, pytest, git, curl",
		Version:     1,
		Changes: []string{"ENV PATH=" + defaultPath, "ENV LANG=C.UTF-8",
			`CMD ["bash"]`, "WORKDIR /"},
		source: debianSource,
	},
	{
		Name: "rbx/buildpack-deps:bookworm",
		Description: "build tools (gcc, make, cmake) plus Go 1.21, Rust 1.85, Node 18 with jest, JDK 17, " +
			"from Debian's packages",
		Version: 1,
		Base:    "rbx/debian:bookworm",
		context: "buildpack-deps",
		Provides: map[string]string{"go": "1.21", "rust": "1.85", "node": "18", "java": "17", "python": "3.11",
			"npm:jest": "29", "npm:babel-jest": "29", "npm:@babel/core": "7", "npm:@babel/preset-env": "7",
			"npm:eslint": "6"},
	},
	{
		Name: "rbx/deveval:bookworm",
		Description: "DevEval toolchain: buildpack-deps plus googletest, gcovr, pytest-cov, " +
			"a pytest-json-report stand-in, pandas, numpy, opencv",
		Version: 1,
		Base:    "rbx/buildpack-deps:bookworm",
		context: "deveval",
	},
}

// Provided returns what the recipe image name provides, its bases'
// toolchains included; nil for an image no recipe builds.
func Provided(name string) map[string]string {
	r, ok := Lookup(name)
	if !ok {
		return nil
	}
	out := Provided(r.Base)
	if out == nil {
		out = map[string]string{}
	}
	for k, v := range r.Provides {
		out[k] = v
	}
	return out
}

// Recipes returns every known recipe, sorted by name.
func Recipes() []Recipe {
	out := slices.Clone(recipes)
	slices.SortFunc(out, func(a, b Recipe) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Lookup returns the recipe that builds name; a name without a tag means
// ":latest", as it does for the engine.
func Lookup(name string) (Recipe, bool) {
	return lookupIn(recipes, name)
}

func lookupIn(rs []Recipe, name string) (Recipe, bool) {
	n := normalize(name)
	for _, r := range rs {
		if r.Name == n {
			return r, true
		}
	}
	return Recipe{}, false
}

// normalize adds ":latest" when name has no tag. A colon before the last
// slash belongs to a registry port, not a tag.
func normalize(name string) string {
	name = strings.TrimSpace(name)
	if name == "" {
		return name
	}
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		return name
	}
	return name + ":latest"
}
