# A tasks image: task folders (task.yaml, trajectory.json, workspace/,
# tests/ as in examples/) under /tasks, over rbx's static busybox, which the
# loader of tasks.yaml runs to copy them. Build it from a directory holding
# tasks/, one folder per task, and tag each set you deliver anew:
#   docker build -f deploy/kubernetes/tasks.Dockerfile -t registry.example.com/rbx/tasks:v2 DIR
FROM rbx/busybox:latest
COPY tasks/ /tasks/
USER 65534:65534
