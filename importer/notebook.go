package importer

import (
	"encoding/json"
	"fmt"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// kindNotebook is Claude Code's NotebookEdit: a cell of a Jupyter
// notebook replaced, inserted or deleted. It replays as python3 editing
// the notebook's JSON as the tool does (the agents' notebooks come with a
// Python); resolveNotebooks drops one the tool refused.
const kindNotebook trajectory.Kind = "notebook_edit"

// notebookScript is the Python that applies one NotebookEdit, its input
// as JSON in argv[1]: the cell found by its id (else "cell-N", the Nth),
// a replace setting its source (and type; a code cell's outputs and
// count cleared), an insert adding a cell after it (at the top without
// one), a delete removing it. A cell it cannot find fails the step.
const notebookScript = `import json, sys
a = json.loads(sys.argv[1])
p = a["notebook_path"]
with open(p, encoding="utf-8") as f:
    nb = json.load(f)
cells = nb.setdefault("cells", [])
cid = a.get("cell_id") or ""
mode = a.get("edit_mode") or "replace"
i = -1
if cid:
    i = next((k for k, c in enumerate(cells) if c.get("id") == cid), -1)
    if i < 0 and cid.startswith("cell-") and cid[5:].isdigit() and int(cid[5:]) < len(cells):
        i = int(cid[5:])
    if i < 0:
        sys.exit("cell %s not found in %s" % (cid, p))
src = a.get("new_source") or ""
if mode == "delete":
    del cells[i]
elif mode == "insert":
    t = a.get("cell_type") or "code"
    c = {"cell_type": t, "metadata": {}, "source": src}
    if t == "code":
        c.update(execution_count=None, outputs=[])
    cells.insert(i + 1, c)
else:
    if i < 0:
        sys.exit("replace needs a cell_id")
    c = cells[i]
    c["source"] = src
    if a.get("cell_type"):
        c["cell_type"] = a["cell_type"]
    if c["cell_type"] == "code":
        c["execution_count"] = None
        c["outputs"] = []
with open(p, "w", encoding="utf-8") as f:
    json.dump(nb, f, indent=1, ensure_ascii=False)
    f.write("\n")
`

// notebookStep maps a NotebookEdit call's arguments.
func notebookStep(args map[string]any) (trajectory.Step, error) {
	if p, _ := args["notebook_path"].(string); p == "" {
		return trajectory.Step{}, fmt.Errorf("missing notebook_path")
	}
	input, err := json.Marshal(args)
	if err != nil {
		return trajectory.Step{}, err
	}
	return trajectory.Step{Action: kindNotebook,
		Command: "python3 -c " + shellQuote(notebookScript) + " " + shellQuote(string(input))}, nil
}

// resolveNotebooks makes each NotebookEdit a shell step, or a noop when
// the recording says the tool refused it (the notebook was left as it
// was).
func resolveNotebooks(steps []trajectory.Step) {
	for i := range steps {
		s := &steps[i]
		if s.Action != kindNotebook {
			continue
		}
		if failedWhenRecorded(*s) {
			*s = declinedStep(*s, "NotebookEdit", recorded(*s))
			continue
		}
		replace(s, trajectory.Step{Action: trajectory.KindShell, Command: s.Command, Compare: "ignore"})
	}
}
