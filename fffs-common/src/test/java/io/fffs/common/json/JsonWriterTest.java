package io.fffs.common.json;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JsonWriterTest {
  @Test
  void nestedObjectsAndArraysAreSeparatedAndStringsEscaped() {
    String json = new JsonWriter().beginObject()
        .field("name", "a \"quoted\" \\ path\n\t\u0001")
        .field("count", 3)
        .field("healthy", true)
        .field("missing", (String) null)
        .beginArray("nodes")
        .beginObject().field("id", "dn-1").endObject()
        .beginObject().field("id", "dn-2").raw("load", "0.5").endObject()
        .endArray()
        .beginObject("inner").field("x", -1).endObject()
        .endObject().toString();
    assertThat(json).isEqualTo("{\"name\":\"a \\\"quoted\\\" \\\\ path\\n\\t\\u0001\",\"count\":3,\"healthy\":true,"
        + "\"missing\":null,\"nodes\":[{\"id\":\"dn-1\"},{\"id\":\"dn-2\",\"load\":0.5}],\"inner\":{\"x\":-1}}");
  }
}
