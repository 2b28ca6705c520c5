package io.fffs.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/** A JSON document built field by field (Jackson's generator underneath: escaping is its job). */
final class Json {
  private static final JsonFactory FACTORY = new JsonFactory();

  private final StringWriter out = new StringWriter(256);
  private final JsonGenerator json;

  Json() {
    try {
      json = FACTORY.createGenerator(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private interface Write {
    void run() throws IOException;
  }

  private Json write(Write write) {
    try {
      write.run();
    } catch (IOException e) {
      throw new UncheckedIOException(e);  // a StringWriter does not fail
    }
    return this;
  }

  Json beginObject() {
    return write(json::writeStartObject);
  }

  Json beginObject(String name) {
    return write(() -> json.writeObjectFieldStart(name));
  }

  Json endObject() {
    return write(json::writeEndObject);
  }

  Json beginArray(String name) {
    return write(() -> json.writeArrayFieldStart(name));
  }

  Json endArray() {
    return write(json::writeEndArray);
  }

  Json value(String value) {
    return write(() -> json.writeString(value));
  }

  Json field(String name, String value) {
    return write(() -> json.writeStringField(name, value));
  }

  Json field(String name, long value) {
    return write(() -> json.writeNumberField(name, value));
  }

  Json field(String name, boolean value) {
    return write(() -> json.writeBooleanField(name, value));
  }

  @Override
  public String toString() {
    write(json::flush);
    return out.toString();
  }
}
