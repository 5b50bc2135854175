package io.jfabric.cli.pingpong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

@Timeout(10)
class ResultTableTest {

    @Test
    void rowsMatchFiPingpongColumnForColumn() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ResultTable t = new ResultTable(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        // fi_pingpong -S 64 -I 100 printed this for 26446 us on this machine (libfabric 1.17.0)
        t.row(64, 100, 100, 26446, 2);
        t.row(1 << 20, 10, 10, 2_000_000, 2);
        t.row(1536, 10, 9, 1000, 2);
        String[] lines = bytes.toString(StandardCharsets.UTF_8).split("\n");
        assertEquals("bytes   #sent   #ack     total       time     MB/sec    usec/xfer   Mxfers/sec", lines[0]);
        assertEquals("64      100     =100     12k         0.03s      0.48     132.23       0.01", lines[1]);
        assertEquals("1m      10      =10      20m         2.00s     10.49  100000.00       0.00", lines[2]);
        assertEquals("1.5k    10      +1       30k         0.00s     30.72      50.00       0.02", lines[3]);
    }

    @Test
    void sizeAndCountStringsUseFiPingpongUnits() {
        assertEquals("0", ResultTable.sizeStr(0));
        assertEquals("1023", ResultTable.sizeStr(1023));
        assertEquals("1k", ResultTable.sizeStr(1024));
        assertEquals("1.5k", ResultTable.sizeStr(1536));
        assertEquals("64k", ResultTable.sizeStr(65536));
        assertEquals("6m", ResultTable.sizeStr(6 << 20));
        assertEquals("4.5m", ResultTable.sizeStr((4 << 20) + (512 << 10)));
        assertEquals("999", ResultTable.cntStr(999));
        assertEquals("10k", ResultTable.cntStr(10_000));
        assertEquals("1m", ResultTable.cntStr(1_500_000));
    }

    @Test
    void nothingIsPrintedForZeroIterations() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new ResultTable(new PrintStream(bytes, true, StandardCharsets.UTF_8)).row(64, 0, 0, 10, 2);
        assertEquals("", bytes.toString(StandardCharsets.UTF_8));
    }
}
