package io.jfabric.provider.tcp;

import io.jfabric.Errno;
import io.jfabric.FabricException;

import java.util.Arrays;

/**
 * The domain's registered regions by key, for target-side RMA checks. Lookups (data path, any thread) use a
 * sorted key array published through a volatile field, so they neither lock nor box the key; registration
 * (control path) copies the arrays. Plays the part of libfabric's {@code ofi_mr_map}.
 */
final class MrRegistry {
    private static final class Table {
        final long[] keys;
        final TcpMemoryRegion[] regions;

        Table(long[] keys, TcpMemoryRegion[] regions) {
            this.keys = keys;
            this.regions = regions;
        }
    }

    private volatile Table table = new Table(new long[0], new TcpMemoryRegion[0]);

    synchronized void add(TcpMemoryRegion mr) {
        Table t = table;
        int i = Arrays.binarySearch(t.keys, mr.key());
        if (i >= 0) {
            throw new FabricException(Errno.ENOKEY, "key " + mr.key() + " is already registered in this domain;"
                    + " choose another key or use FI_MR_PROV_KEY");
        }
        int at = -i - 1;
        long[] k = new long[t.keys.length + 1];
        TcpMemoryRegion[] r = new TcpMemoryRegion[k.length];
        System.arraycopy(t.keys, 0, k, 0, at);
        System.arraycopy(t.regions, 0, r, 0, at);
        k[at] = mr.key();
        r[at] = mr;
        System.arraycopy(t.keys, at, k, at + 1, t.keys.length - at);
        System.arraycopy(t.regions, at, r, at + 1, t.keys.length - at);
        table = new Table(k, r);
    }

    synchronized void remove(TcpMemoryRegion mr) {
        Table t = table;
        int i = Arrays.binarySearch(t.keys, mr.key());
        if (i < 0 || t.regions[i] != mr) {
            return;
        }
        long[] k = new long[t.keys.length - 1];
        TcpMemoryRegion[] r = new TcpMemoryRegion[k.length];
        System.arraycopy(t.keys, 0, k, 0, i);
        System.arraycopy(t.regions, 0, r, 0, i);
        System.arraycopy(t.keys, i + 1, k, i, k.length - i);
        System.arraycopy(t.regions, i + 1, r, i, k.length - i);
        table = new Table(k, r);
    }

    TcpMemoryRegion find(long key) {
        Table t = table;
        int i = Arrays.binarySearch(t.keys, key);
        return i < 0 ? null : t.regions[i];
    }

    int size() {
        return table.keys.length;
    }
}
