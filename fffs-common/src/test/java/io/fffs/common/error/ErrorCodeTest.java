package io.fffs.common.error;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.common.proto.CommonProtos.ErrorCodeProto;
import io.fffs.common.proto.CommonProtos.ErrorProto;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ErrorCodeTest {
  @Test
  void mapsOneToOneToTheProtoEnum() {
    assertThat(ErrorCode.values()).hasSameSizeAs(ErrorCodeProto.values());
    for (ErrorCode code : ErrorCode.values()) {
      ErrorCodeProto proto = ErrorCodeProto.forNumber(code.number());
      assertThat(proto).as("proto for %s", code).isNotNull();
      assertThat(proto.name()).isEqualTo(code.name());
      assertThat(ErrorCode.forNumber(proto.getNumber())).isSameAs(code);
    }
    assertThat(Arrays.stream(ErrorCode.values()).mapToInt(ErrorCode::number).distinct().count())
        .isEqualTo(ErrorCode.values().length);
  }

  @Test
  void unknownNumberIsInternal() {
    assertThat(ErrorCode.forNumber(9999)).isSameAs(ErrorCode.INTERNAL);
  }

  @Test
  void exceptionRoundTripsThroughProtoAndText() {
    FffsException e = new FffsException(ErrorCode.WRITE_BEYOND_EOF, "offset 10 is beyond the end (4) of block 7");
    assertThat(e.getMessage()).isEqualTo("WRITE_BEYOND_EOF: offset 10 is beyond the end (4) of block 7");

    ErrorProto proto = e.toProto();
    assertThat(proto.getCode()).isEqualTo(ErrorCodeProto.WRITE_BEYOND_EOF);
    FffsException back = FffsException.fromProto(proto);
    assertThat(back.code()).isEqualTo(ErrorCode.WRITE_BEYOND_EOF);
    assertThat(back.detail()).isEqualTo(e.detail());

    FffsException fromText = new FffsException(e.getMessage());
    assertThat(fromText.code()).isEqualTo(ErrorCode.WRITE_BEYOND_EOF);
    assertThat(fromText.detail()).isEqualTo(e.detail());
  }

  @Test
  void textWithoutACodeIsInternalAndKeepsEverything() {
    FffsException e = new FffsException("disk on fire: sector 9");
    assertThat(e.code()).isEqualTo(ErrorCode.INTERNAL);
    assertThat(e.detail()).isEqualTo("disk on fire: sector 9");
  }

  @Test
  void wireCopyHasNoStackTrace() {
    FffsException e = new FffsException(ErrorCode.CORRUPT, "bad CRC", new RuntimeException("x"));
    FffsException wire = e.forWire();
    assertThat(wire.getStackTrace()).isEmpty();
    assertThat(wire.getCause()).isNull();
    assertThat(wire.getMessage()).isEqualTo(e.getMessage());
  }
}
