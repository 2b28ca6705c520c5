package io.fffs.client.data;

import io.fffs.common.proto.ClientNamenodeProtocolProtos.DatanodeIdProto;
import io.fffs.common.proto.DataTransferProtos.RequestHeaderProto;
import io.fffs.common.proto.DataTransferProtos.ResponseHeaderProto;
import java.io.IOException;

/** One request without payload to a DataNode: its answer, the answer's HLC observed, its error thrown typed. */
@FunctionalInterface
interface DataNodeCalls {
  ResponseHeaderProto call(DatanodeIdProto datanode, RequestHeaderProto.Builder request) throws IOException;
}
