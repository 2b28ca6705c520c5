package io.fffs.datanode.http;

import io.fffs.common.json.JsonWriter;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Array;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;

/**
 * {@code /jmx}: the platform MBeans as JSON, {@code {"beans":[{"name":…, attribute: value, …}]}}, as Hadoop's
 * {@code /jmx} lays them out; {@code ?qry=java.lang:type=Memory} narrows to the beans a pattern names. Attributes
 * that cannot be read are left out.
 */
final class JmxJson {
  private JmxJson() {}

  static String render(String query) throws MalformedObjectNameException {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    JsonWriter json = new JsonWriter().beginObject().beginArray("beans");
    for (ObjectName name : server.queryNames(new ObjectName(query == null || query.isEmpty() ? "*:*" : query),
        null)) {
      json.beginObject().field("name", name.toString());
      try {
        for (MBeanAttributeInfo attribute : server.getMBeanInfo(name).getAttributes()) {
          if (!attribute.isReadable()) {
            continue;
          }
          try {
            json.raw(attribute.getName(), value(server.getAttribute(name, attribute.getName()), 0));
          } catch (Exception | LinkageError e) {
            // Some attributes throw when read (unsupported operations): a JMX dump leaves them out.
          }
        }
      } catch (Exception e) {
        json.field("error", e.toString());
      }
      json.endObject();
    }
    return json.endArray().endObject().toString();
  }

  private static String value(Object value, int depth) {
    if (value == null || depth > 4) {
      return "null";
    }
    if (value instanceof Number number) {
      double d = number.doubleValue();
      return Double.isFinite(d) ? number.toString() : "null";
    }
    if (value instanceof Boolean) {
      return value.toString();
    }
    if (value instanceof CompositeData composite) {
      StringBuilder out = new StringBuilder("{");
      boolean first = true;
      for (String key : composite.getCompositeType().keySet()) {
        out.append(first ? "" : ",");
        out.append(quoted(key)).append(':').append(value(composite.get(key), depth + 1));
        first = false;
      }
      return out.append('}').toString();
    }
    if (value.getClass().isArray()) {
      StringBuilder out = new StringBuilder("[");
      for (int i = 0; i < Array.getLength(value); i++) {
        out.append(i == 0 ? "" : ",").append(value(Array.get(value, i), depth + 1));
      }
      return out.append(']').toString();
    }
    return quoted(value.toString());
  }

  private static String quoted(String text) {
    String object = new JsonWriter().beginObject().field("v", text).endObject().toString();
    return object.substring("{\"v\":".length(), object.length() - 1);
  }
}
