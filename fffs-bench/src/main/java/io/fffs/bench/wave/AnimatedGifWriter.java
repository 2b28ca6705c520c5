package io.fffs.bench.wave;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageTypeSpecifier;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.metadata.IIOMetadata;
import javax.imageio.metadata.IIOMetadataNode;
import javax.imageio.stream.ImageOutputStream;

/**
 * An animated GIF through {@code javax.imageio}: every frame carries a Graphic Control Extension with its delay
 * (hundredths of a second), and the first a NETSCAPE2.0 application extension whose sub-block
 * {@code 1, 0, 0} (sub-block id 1, loop count 0 little-endian) makes viewers loop forever.
 */
final class AnimatedGifWriter {
  private static final String FORMAT = "javax_imageio_gif_image_1.0";

  private AnimatedGifWriter() {}

  static void write(Path file, List<BufferedImage> frames, int delayCentis) throws IOException {
    if (frames.isEmpty()) {
      throw new IllegalArgumentException("no frames");
    }
    ImageWriter writer = ImageIO.getImageWritersByFormatName("gif").next();
    Files.deleteIfExists(file);
    try (ImageOutputStream out = ImageIO.createImageOutputStream(file.toFile())) {
      writer.setOutput(out);
      ImageWriteParam param = writer.getDefaultWriteParam();
      writer.prepareWriteSequence(null);
      for (int i = 0; i < frames.size(); i++) {
        BufferedImage image = frames.get(i);
        IIOMetadata meta = writer.getDefaultImageMetadata(ImageTypeSpecifier.createFromRenderedImage(image), param);
        IIOMetadataNode root = (IIOMetadataNode) meta.getAsTree(FORMAT);
        IIOMetadataNode control = child(root, "GraphicControlExtension");
        control.setAttribute("disposalMethod", "none");
        control.setAttribute("userInputFlag", "FALSE");
        control.setAttribute("transparentColorFlag", "FALSE");
        control.setAttribute("delayTime", Integer.toString(delayCentis));
        control.setAttribute("transparentColorIndex", "0");
        if (i == 0) {
          IIOMetadataNode app = new IIOMetadataNode("ApplicationExtension");
          app.setAttribute("applicationID", "NETSCAPE");
          app.setAttribute("authenticationCode", "2.0");
          app.setUserObject(new byte[] {1, 0, 0});
          child(root, "ApplicationExtensions").appendChild(app);
        }
        meta.setFromTree(FORMAT, root);
        writer.writeToSequence(new IIOImage(image, null, meta), param);
      }
      writer.endWriteSequence();
    } finally {
      writer.dispose();
    }
  }

  private static IIOMetadataNode child(IIOMetadataNode root, String name) {
    for (int i = 0; i < root.getLength(); i++) {
      if (root.item(i).getNodeName().equalsIgnoreCase(name)) {
        return (IIOMetadataNode) root.item(i);
      }
    }
    IIOMetadataNode node = new IIOMetadataNode(name);
    root.appendChild(node);
    return node;
  }
}
