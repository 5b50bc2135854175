package io.jfabric.bench;

import org.junit.jupiter.api.Test;

import javax.imageio.ImageIO;
import java.awt.Color;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** bench/compare's parsing, statistics and plotting, on fixed inputs. */
class CompareHelpersTest {
    @Test
    void parsesAFiPingpongTable() {
        String out = """
                bytes   #sent   #ack     total       time     MB/sec    usec/xfer   Mxfers/sec
                1m      200     =200     400m        0.52s    806.12    1300.71       0.00
                """;
        PingPongResult r = PingPongResult.parse(out);
        assertNotNull(r);
        assertEquals(1L << 20, r.size());
        assertEquals(806.12, r.mbPerSec(), 1e-9);
        assertEquals(1300.71, r.usecPerXfer(), 1e-9);
        assertNull(PingPongResult.parse("fi_getinfo(): -61\n"));
        assertEquals(1536, PingPongResult.parseSize("1.5k"));
    }

    @Test
    void medianOfOddAndEvenCounts() {
        assertEquals(3.0, Stats.median(List.of(5.0, 1.0, 3.0)));
        assertEquals(2.5, Stats.median(List.of(4.0, 1.0, 2.0, 3.0)));
        assertTrue(Double.isNaN(Stats.median(List.of())));
    }

    @Test
    void theLibfabricTransportsKeepTheirOldOfiSpellings() {
        assertEquals("libfabric:shm", Transport.byKey("libfabric-shm").jfabricProv());
        for (String t : List.of("tcp", "rxm", "shm")) {
            assertEquals(Transport.byKey("libfabric-" + t), Transport.byKey("ofi-" + t), "ofi-" + t);
        }
    }

    @Test
    void rateModeReadsTheSendersRowsOfBwsCsvOnly() {
        String out = "test   bytes ...table...\n"
                + "test,bytes,ops,total_bytes,time_ns,mb_per_sec,mops_per_sec,usec_per_op,p50_us\n"
                + "rate-msg,64,128000,8192000,1000000,8.19,0.128,7.81,0.5\n"
                + "rate-msg,256,128000,32768000,2000000,16.38,0.064,15.6,0.9\n"
                + "rate-msg-rx,64,128000,8192000,1000000,8.19,9.999,7.81,0.5\n";
        assertEquals(java.util.Map.of(64L, 0.128, 256L, 0.064), RateCompare.parseRates(out));
        assertTrue(RateCompare.parseRates("bw: failed to connect").isEmpty());
    }

    @Test
    void rateModeKeepsTheSecondPassOverTheSizes() {
        String out = "rate-msg,1,128000,128000,1000000,0.1,0.301,3.3,0.5\n"
                + "rate-msg,8,128000,1024000,1000000,0.8,0.812,1.2,0.5\n"
                + "rate-msg,1,128000,128000,1000000,0.1,0.795,1.3,0.5\n"
                + "rate-msg,8,128000,1024000,1000000,0.8,0.799,1.3,0.5\n";
        assertEquals(java.util.Map.of(1L, 0.795, 8L, 0.799), RateCompare.parseRates(out));
    }

    @Test
    void largeMessagesWarmUpLongEnoughForC2AndStayBounded() {
        Transport tcp = Transport.byKey("tcp");
        assertEquals(20_000, Compare.warmup(tcp, 1 << 20, 953), "1 MiB: per-message code must reach C2");
        assertEquals(2048, Compare.warmup(tcp, 16 << 20, 100), "16 MiB: 32 GiB at most");
        assertEquals(50_000, Compare.warmup(tcp, 1 << 16, 50_000), "never fewer than the timed round trips");
        assertEquals(2_000_000, Compare.warmup(Transport.byKey("shm"), 64, 50_000));
    }

    @Test
    void coldRunsTimeTheFirstSmallRoundTripsAndTheSecondThousandBulkOnes() {
        Transport shm = Transport.byKey("shm");
        Compare cold = new Compare();
        cold.parse(new String[] {"--cold", "--sizes", "64,1m", "--out", "unused"});
        assertEquals(10_000, cold.iterations(64));
        assertEquals(0, cold.jfabricWarmup(shm, 64, 10_000), "small: no warm-up at all");
        assertEquals(1_000, cold.iterations(1 << 20));
        assertEquals(1_000, cold.jfabricWarmup(shm, 1 << 20, 1_000), "bulk: the first 1,000 untimed");
        Compare warm = new Compare();
        warm.parse(new String[] {"--sizes", "1m", "--out", "unused"});
        assertEquals(20_000, warm.jfabricWarmup(shm, 1 << 20, warm.iterations(1 << 20)), "outside --cold: steady");
    }

    @Test
    void plotDrawsBothCurvesInTheirColours() throws Exception {
        Path png = Files.createTempFile("plot", ".png");
        long[] sizes = {64, 4096, 1 << 20};
        Color red = new Color(200, 40, 40);
        Color blue = new Color(30, 90, 200);
        Plot.render(png, "test", sizes, List.of(
                new Plot.Series("a", red, false, new double[]{10, 20, 900}, new double[]{5, 200, 1000}),
                new Plot.Series("b", blue, false, new double[]{12, 25, Double.NaN}, new double[]{4, 150, Double.NaN})));
        BufferedImage img = ImageIO.read(png.toFile());
        assertEquals(1240, img.getWidth());
        int redPixels = 0;
        int bluePixels = 0;
        for (int y = 0; y < img.getHeight(); y++) {
            for (int x = 0; x < img.getWidth(); x++) {
                int rgb = img.getRGB(x, y) & 0xffffff;
                redPixels += rgb == (red.getRGB() & 0xffffff) ? 1 : 0;
                bluePixels += rgb == (blue.getRGB() & 0xffffff) ? 1 : 0;
            }
        }
        assertTrue(redPixels > 200 && bluePixels > 100, "curves drawn: red " + redPixels + ", blue " + bluePixels);
    }
}
