# Environment of every bin/fffs command, read by bin/fffs on every host (bin/fffs cluster runs bin/fffs over ssh).
# Uncomment to change; a variable already set in the caller's environment is overridden by a line here.
# export JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64
# export FFFS_HEAPSIZE=4g                  # -Xmx of every command (digits alone are MiB)
# export FFFS_NAMENODE_OPTS="-Xmx8g"       # after FFFS_HEAPSIZE, so this one wins for the NameNode
# export FFFS_DATANODE_OPTS=""             # the arena is off-heap (fffs.datanode.memory.capacity), the heap small
# export FFFS_CLIENT_OPTS=""               # dfs, versions, history, admin
# export FFFS_PID_DIR=/var/run/fffs
# export FFFS_LOG_DIR=/var/log/fffs
# export FFFS_STOP_TIMEOUT=300             # seconds --daemon stop waits (a DataNode persists its arena) before -9
# export FFFS_UCX_HOME=/opt/ucx            # UCX built with verbs for RDMA (docs/rdma.md); else the system's
# export FFFS_SSH_OPTS="-o BatchMode=yes -o ConnectTimeout=10"
