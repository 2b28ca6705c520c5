package io.fffs.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.fffs.client.FreezeFrameFileSystem;
import io.fffs.common.security.KerberosConfigKeys;
import io.fffs.common.time.TimeSpec;
import io.fffs.datanode.DataNodeServiceConfigKeys;
import io.fffs.minicluster.MiniFffsCluster;
import java.io.File;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.minikdc.MiniKdc;
import org.apache.hadoop.security.Credentials;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.security.authentication.util.KerberosName;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Spark ({@code local[2]}) job on a kerberized cluster with nothing but a delegation token: a user logged in from
 * a keytab collects the token ({@code addDelegationTokens}), and a session created as a user that holds only the
 * token writes a Parquet table to {@code fffs://}, overwrites it and reads it as of before the overwrite. Runs in
 * the {@code kerberos} surefire execution (Hadoop keeps the security settings in static state).
 */
class KerberosSparkJobTest {
  static final StructType SCHEMA = new StructType()
      .add("id", DataTypes.IntegerType, false)
      .add("v", DataTypes.LongType, false);

  @TempDir
  static Path base;
  static MiniKdc kdc;
  static MiniFffsCluster cluster;
  static FreezeFrameFileSystem admin;
  static UserGroupInformation task;

  @BeforeAll
  static void start() throws Exception {
    kdc = new MiniKdc(MiniKdc.createConf(), base.resolve("kdc").toFile());
    kdc.start();
    KerberosName.resetDefaultRealm();
    String realm = kdc.getRealm();
    File serviceKeytab = base.resolve("fffs.keytab").toFile();
    File userKeytab = base.resolve("alice.keytab").toFile();
    kdc.createPrincipal(serviceKeytab, "fffs/localhost", "HTTP/localhost");
    kdc.createPrincipal(userKeytab, "alice");

    Configuration conf = new Configuration();
    conf.set("hadoop.security.authentication", "kerberos");
    conf.set(KerberosConfigKeys.NAMENODE_PRINCIPAL_KEY, "fffs/_HOST@" + realm);
    conf.set(KerberosConfigKeys.NAMENODE_KEYTAB_KEY, serviceKeytab.getPath());
    conf.set(KerberosConfigKeys.DATANODE_PRINCIPAL_KEY, "fffs/_HOST@" + realm);
    conf.set(KerberosConfigKeys.DATANODE_KEYTAB_KEY, serviceKeytab.getPath());
    conf.set(KerberosConfigKeys.WEB_PRINCIPAL_KEY, "HTTP/_HOST@" + realm);
    conf.set("hadoop.security.auth_to_local", "RULE:[2:$1@$0](fffs@" + realm + ")s/.*/fffs/\nDEFAULT");
    conf.set(DataNodeServiceConfigKeys.REGISTER_TIMEOUT_KEY, "20s");
    cluster = MiniFffsCluster.builder().baseDir(base.resolve("cluster")).conf(conf).numDataNodes(1).build();

    // The test thread is the NameNode's login user now (the superuser, fffs): alice's home is hers alone.
    admin = cluster.getFileSystem();
    org.apache.hadoop.fs.Path home = new org.apache.hadoop.fs.Path("/user/alice");
    admin.mkdirs(home);
    admin.setOwner(home, "alice", null);
    admin.setPermission(home, new FsPermission((short) 0700));

    UserGroupInformation alice = UserGroupInformation.loginUserFromKeytabAndReturnUGI("alice@" + realm,
        userKeytab.getPath());
    Credentials credentials = new Credentials();
    alice.doAs((PrivilegedExceptionAction<Object>) () -> {
      try (FileSystem fs = FileSystem.newInstance(cluster.getURI(), cluster.getConfiguration())) {
        return fs.addDelegationTokens("alice", credentials);
      }
    });
    assertThat(credentials.numberOfTokens()).isEqualTo(1);
    task = UserGroupInformation.createRemoteUser("alice");
    task.addCredentials(credentials);
  }

  @AfterAll
  static void stop() throws Exception {
    System.clearProperty("spark.hadoop.hadoop.security.authentication");
    if (admin != null) {
      admin.close();
    }
    if (cluster != null) {
      cluster.close();
    }
    if (kdc != null) {
      kdc.stop();
    }
  }

  static Dataset<Row> rows(SparkSession spark, int from, int to) {
    List<Row> rows = new ArrayList<>();
    for (int i = from; i < to; i++) {
      rows.add(RowFactory.create(i, (long) i * i));
    }
    return spark.createDataFrame(rows, SCHEMA).repartition(2);
  }

  static List<Integer> ids(Dataset<Row> df) {
    return df.collectAsList().stream().map(r -> r.getInt(0)).sorted().collect(Collectors.toList());
  }

  /** A system time after every change so far and before any change made after this returns. */
  static long between() throws Exception {
    long t = admin.currentTime().physicalMicros();
    while (ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now()) <= t) {
      Thread.sleep(1);
    }
    return t;
  }

  @Test
  void aJobWithOnlyADelegationTokenWritesOverwritesAndReadsATableAsOfAPastTime() throws Exception {
    assertThat(task.hasKerberosCredentials()).isFalse();
    String root = cluster.getURI().toString();
    String table = root + "/user/alice/sales";
    List<List<Integer>> seen = task.doAs((PrivilegedExceptionAction<List<List<Integer>>>) () -> {
      SparkSession.Builder builder = LocalSpark.builder("fffs-kerberos");
      for (Map.Entry<String, String> setting : cluster.getConfiguration()) {
        if (setting.getKey().startsWith("fffs.") || setting.getKey().startsWith("hadoop.security.")
            || setting.getKey().startsWith("fs.")) {
          builder.config("spark.hadoop." + setting.getKey(), setting.getValue());
        }
      }
      // Starting a session applies a Configuration built from system properties alone to Hadoop's process-wide
      // security state; on a real cluster core-site.xml says kerberos there, here the system property does. Left
      // out, this process's own Kerberos connections (admin's) fall back to SIMPLE once their idle connection closes.
      System.setProperty("spark.hadoop.hadoop.security.authentication", "kerberos");
      SparkSession spark = builder.getOrCreate();
      try {
        rows(spark, 0, 10).write().mode(SaveMode.Overwrite).parquet(table);
        long before = between();
        rows(spark, 100, 105).write().mode(SaveMode.Overwrite).parquet(table);
        return List.of(ids(spark.read().parquet(table)),
            ids(spark.read().parquet(table + TimeSpec.system(before).toMarker())));
      } finally {
        spark.stop();
      }
    });
    assertThat(seen.get(0)).containsExactly(100, 101, 102, 103, 104);
    assertThat(seen.get(1)).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    // Written as alice (the token's owner), not as the process's Kerberos login (fffs, the superuser).
    List<String> owners = new ArrayList<>();
    for (FileStatus part : admin.listStatus(new org.apache.hadoop.fs.Path("/user/alice/sales"))) {
      owners.add(part.getOwner());
    }
    assertThat(owners).isNotEmpty().containsOnly("alice");
  }
}
