package io.fffs.common.io;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;

/**
 * Unmaps a mapping at once rather than when the garbage collector finds it ({@code sun.misc.Unsafe.invokeCleaner},
 * in module jdk.unsupported): a reader that maps a small range for each check or read-ahead would otherwise pile up
 * mappings until the next GC. Where that method cannot be reached, the mapping is left to the GC.
 */
public final class Unmapper {
  private static final MethodHandle INVOKE_CLEANER = find();

  private Unmapper() {}

  private static MethodHandle find() {
    try {
      Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
      Field field = unsafeClass.getDeclaredField("theUnsafe");
      field.setAccessible(true);
      return MethodHandles.lookup().findVirtual(unsafeClass, "invokeCleaner",
          MethodType.methodType(void.class, ByteBuffer.class)).bindTo(field.get(null));
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  /** Unmaps {@code map}, which nothing may touch afterwards. */
  public static void unmap(MappedByteBuffer map) {
    if (INVOKE_CLEANER != null) {
      try {
        INVOKE_CLEANER.invokeExact((ByteBuffer) map);
      } catch (Throwable e) {
        // Left to the garbage collector.
      }
    }
  }
}
