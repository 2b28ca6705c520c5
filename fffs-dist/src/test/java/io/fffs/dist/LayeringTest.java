package io.fffs.dist;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackages;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module graph, checked on the main classes of every module the tarball ships: common ← protocol ← {client,
 * namenode, datanode}; the UCX plumbing and client side (fffs-rdma-client) see only protocol; the UCX server side
 * (fffs-rdma-server) sees the DataNode but never the client; the WebHDFS gateway (fffs-http) reaches FFFS through
 * the client only; nothing but the mini-cluster and the benchmarks sees more than one side; nothing sees the
 * benchmarks. A violation names the class and the dependency.
 */
class LayeringTest {
  private static final String COMMON = "io.fffs.common..";
  private static final String PROTOCOL = "io.fffs.protocol..";
  private static final String CLIENT = "io.fffs.client..";
  private static final String NAMENODE = "io.fffs.namenode..";
  private static final String DATANODE = "io.fffs.datanode..";
  private static final String RDMA_PLUMBING = "io.fffs.rdma";
  private static final String RDMA_CLIENT = "io.fffs.rdma.client..";
  private static final String RDMA_SERVER = "io.fffs.rdma.server..";
  private static final String PLUGINS = "io.fffs.plugins..";
  private static final String HTTP = "io.fffs.http..";
  private static final String MINICLUSTER = "io.fffs.minicluster..";
  private static final String BENCH = "io.fffs.bench..";

  private static JavaClasses classes;

  @BeforeAll
  static void importMainClasses() {
    // Test jars on this class path (the contract suites) are tests too, which DO_NOT_INCLUDE_TESTS only knows by
    // their directories.
    classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .withImportOption(location -> !location.contains("-tests.jar"))
        .importPackages("io.fffs");
  }

  /** Every module's classes are there, so no rule below holds only because it saw nothing. */
  @Test
  void everyModuleIsImported() {
    for (String module : List.of(COMMON, PROTOCOL, CLIENT, NAMENODE, DATANODE, RDMA_CLIENT, RDMA_SERVER, PLUGINS,
        HTTP, MINICLUSTER, BENCH)) {
      String prefix = module.replace("..", "");
      assertThat(classes.stream().anyMatch(c -> c.getPackageName().startsWith(prefix))).as(module).isTrue();
    }
    assertThat(classes.stream().anyMatch(c -> c.getPackageName().equals(RDMA_PLUMBING))).isTrue();
  }

  /** A rule fails when a module uses one it is not allowed: the DataNode does use the protocol module. */
  @Test
  void aRuleThatAllowsTooLittleFails() {
    assertThatThrownBy(() -> only(DATANODE, COMMON).check(classes)).isInstanceOf(AssertionError.class)
        .hasMessageContaining("io.fffs.protocol");
  }

  @Test
  void commonDependsOnNoOtherModule() {
    only(COMMON).check(classes);
  }

  @Test
  void protocolSeesOnlyCommon() {
    only(PROTOCOL, COMMON).check(classes);
  }

  @Test
  void clientSeesNoServer() {
    only(CLIENT, COMMON, PROTOCOL).check(classes);
  }

  @Test
  void nameNodeSeesNoClientAndNoDataNode() {
    only(NAMENODE, COMMON, PROTOCOL).check(classes);
  }

  @Test
  void dataNodeSeesNoClientAndNoNameNode() {
    only(DATANODE, COMMON, PROTOCOL).check(classes);
  }

  @Test
  void rdmaClientSeesOnlyProtocol() {
    only(RDMA_PLUMBING, COMMON, PROTOCOL, RDMA_CLIENT).check(classes);
    only(RDMA_CLIENT, COMMON, PROTOCOL, RDMA_PLUMBING).check(classes);
  }

  @Test
  void rdmaServerSeesTheDataNodeButNoClient() {
    only(RDMA_SERVER, COMMON, PROTOCOL, DATANODE, RDMA_PLUMBING).check(classes);
  }

  @Test
  void webHdfsGatewaySeesTheClientButNoServer() {
    only(HTTP, COMMON, PROTOCOL, CLIENT).check(classes);
  }

  @Test
  void pluginsSeeOnlyCommon() {
    only(PLUGINS, COMMON).check(classes);
  }

  @Test
  void nothingButTheBenchmarksSeesThem() {
    noClasses().that().resideOutsideOfPackage(BENCH).should().dependOnClassesThat().resideInAPackage(BENCH)
        .check(classes);
  }

  /** Classes of {@code module} depend on no FFFS classes but their own and those of {@code allowed}. */
  private static ArchRule only(String module, String... allowed) {
    String[] own = new String[allowed.length + 1];
    own[0] = module;
    System.arraycopy(allowed, 0, own, 1, allowed.length);
    return noClasses().that().resideInAPackage(module).should().dependOnClassesThat(
        resideInAPackage("io.fffs..").and(resideOutsideOfPackages(own)))
        .as("classes in " + module + " depend on no FFFS classes but those in " + String.join(", ", own));
  }
}
