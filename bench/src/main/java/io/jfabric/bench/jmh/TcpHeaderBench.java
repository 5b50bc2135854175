package io.jfabric.bench.jmh;

import io.jfabric.provider.tcp.wire.DataHeader;
import io.jfabric.provider.tcp.wire.WireOrder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * The tcp provider's data-frame header (io.jfabric.provider.tcp.wire.DataHeader, libfabric's tcpx_base_hdr
 * + extensions): encode a tagged message header with cq_data, validate it as the receiver does
 * (decodeBase + decodeExtensions), read the fields back; and the same for an RMA write with one iov.
 * The header lives in a native segment as it does in the provider.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TcpHeaderBench {
    private Arena arena;
    private MemorySegment header;
    private final WireOrder order = WireOrder.HOST;
    private long tag = 1;

    @Setup(Level.Trial)
    public void setup() {
        arena = Arena.ofConfined();
        header = arena.allocate(DataHeader.MAX_HDR_SIZE, 8);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public int encodeMsg() {
        return DataHeader.encodeMsg(header, order, DataHeader.FLAG_REMOTE_CQ_DATA | DataHeader.FLAG_TAGGED, 7, ++tag, 64);
    }

    @Benchmark
    public long encodeDecodeMsg() {
        DataHeader.encodeMsg(header, order, DataHeader.FLAG_REMOTE_CQ_DATA | DataHeader.FLAG_TAGGED, 7, ++tag, 64);
        int hdr = DataHeader.decodeBase(header, order, 1L << 24);
        if (hdr < 0 || DataHeader.decodeExtensions(header, order, 1L << 24) < 0) {
            return hdr;
        }
        return DataHeader.tag(header, order) + DataHeader.cqData(header, order) + DataHeader.payloadLength(header, order);
    }

    @Benchmark
    public long encodeDecodeRmaWrite() {
        DataHeader.encodeRma(header, order, DataHeader.OP_WRITE, 0, 0, 1, 4096);
        DataHeader.putRmaIov(header, order, 0, 0x10000 + (++tag & 0xff), 4096, 0xBE7C);
        int hdr = DataHeader.decodeBase(header, order, 1L << 24);
        if (hdr < 0 || DataHeader.decodeExtensions(header, order, 1L << 24) < 0) {
            return hdr;
        }
        return DataHeader.rmaAddr(header, order, 0) + DataHeader.rmaKey(header, order, 0);
    }
}
