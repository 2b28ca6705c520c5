package io.fffs.minicluster.contract.temporal;

import io.fffs.minicluster.contract.SharedCluster;

/** The random-write contract on FFFS (the shared mini-cluster). */
class FffsRandomWriteContractTest extends FffsRandomWriteContract {
  FffsRandomWriteContractTest() {
    super(SharedCluster::fileSystem);
  }
}
