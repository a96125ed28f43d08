package importer

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/trajectory"
)

func TestParsePatch(t *testing.T) {
	patch := `*** Begin Patch
*** Add File: docs/new.md
+# New
+
+text
*** Update File: src/app.py
*** Move to: src/main.py
@@ def main():
     x = 1
-    y = 2
+    y = 3
+    z = 4

     return x
@@
-import os
+import sys
*** End of File
*** Delete File: old.txt
*** End Patch`
	ops, err := parsePatch(patch)
	require.NoError(t, err)
	require.Len(t, ops, 3)
	assert.Equal(t, patchOp{kind: "add", path: "docs/new.md", lines: []string{"# New", "", "text"}}, ops[0])
	assert.Equal(t, "src/main.py", ops[1].moveTo)
	require.Len(t, ops[1].hunks, 2)
	assert.Equal(t, []string{"    x = 1", "    y = 2", "", "    return x"}, ops[1].hunks[0].old)
	assert.Equal(t, []string{"    x = 1", "    y = 3", "    z = 4", "", "    return x"}, ops[1].hunks[0].new)
	assert.True(t, ops[1].hunks[1].eof)

	steps, err := patchSteps(ops)
	require.NoError(t, err)
	var kinds []trajectory.Kind
	for _, s := range steps {
		kinds = append(kinds, s.Action)
	}
	assert.Equal(t, []trajectory.Kind{"write_file", "edit_file", "edit_file", "shell", "shell"}, kinds)
	assert.Equal(t, "# New\n\ntext\n", *steps[0].Content)
	assert.Equal(t, "    x = 1\n    y = 2\n\n    return x\n", *steps[1].Old)
	assert.Equal(t, "mv -- src/app.py src/main.py", steps[3].Command)
	assert.Equal(t, "rm -- old.txt", steps[4].Command)

	for _, bad := range []string{"", "*** Begin Patch\n*** End Patch", "*** Begin Patch\n+x\n*** End Patch",
		"*** Begin Patch\n*** Update File: a\n@@\n?x\n*** End Patch", "diff --git a/x b/x"} {
		ops, err := parsePatch(bad)
		if err == nil {
			_, err = patchSteps(ops)
		}
		assert.Error(t, err, bad)
	}
}

func TestPatchOf(t *testing.T) {
	p := "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch"
	for _, cmd := range []string{"apply_patch <<'EOF'\n" + p + "\nEOF", "apply_patch <<\"PATCH\"\n" + p + "\nPATCH\n", "apply_patch " + shellQuote(p), "cd /repo && apply_patch <<EOF\n" + p + "\nEOF"} {
		got, _, ok := patchOf(cmd)
		assert.True(t, ok, cmd)
		assert.Equal(t, p, got, cmd)
	}
	_, dir, _ := patchOf("cd /repo && apply_patch <<EOF\n" + p + "\nEOF")
	assert.Equal(t, "/repo", dir)
	_, _, ok := patchOf("echo apply_patch")
	assert.False(t, ok)
}
