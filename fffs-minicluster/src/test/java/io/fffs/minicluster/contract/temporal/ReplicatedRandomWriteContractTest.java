package io.fffs.minicluster.contract.temporal;

import io.fffs.minicluster.contract.replicated.ReplicatedCluster;

/** The random-write contract at replication 3 on three DataNodes: every replica takes the writes at one stamp. */
class ReplicatedRandomWriteContractTest extends FffsRandomWriteContract {
  ReplicatedRandomWriteContractTest() {
    super(ReplicatedCluster::fileSystem);
  }
}
