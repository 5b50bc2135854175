#!/usr/bin/env python3
"""Writes provider-verbs' struct classes in jextract's generated shape (one class per struct:
layout(), sizeof(), <field>$offset(), static getters/setters) where jextract is not installed.

The offsets below were taken from the installed rdma-core 44 headers with gcc (the same
numbers LayoutProbeTest checks on every build); fields the provider does not touch are padding.
With jextract installed, prefer scripts/jextract-verbs.sh, which binds the whole headers.

usage: python3 scripts/jextract-verbs.structs.py [output-dir]
    (default: provider-verbs/src/generated/java, package io.jfabric.provider.verbs.ffi.generated,
    the source root of the committed bindings; scripts/regenerate-bindings calls it when jextract is absent)
"""
import os, sys

PKG = "io.jfabric.provider.verbs.ffi.generated"
PRIM = {"ptr": ("ADDRESS", "MemorySegment", 8), "u64": ("JAVA_LONG", "long", 8), "u32": ("JAVA_INT", "int", 4),
        "u16": ("JAVA_SHORT", "short", 2), "u8": ("JAVA_BYTE", "byte", 1)}
# For each struct: (C header, total size, [(name, type, offset)]). type: a PRIM key, ("bytes", n),
# ("struct", ClassName, size) or ("inline", [(name, type, offset_within)], size) for anonymous members.
STRUCTS = {
 "ibv_context_ops": ("infiniband/verbs.h", 256, [("poll_cq", "ptr", 88), ("req_notify_cq", "ptr", 96),
                    ("post_srq_recv", "ptr", 160), ("post_send", "ptr", 200), ("post_recv", "ptr", 208)]),
 "ibv_context": ("infiniband/verbs.h", 328, [("device", "ptr", 0), ("ops", ("struct", "ibv_context_ops", 256), 8),
                ("cmd_fd", "u32", 264), ("async_fd", "u32", 268), ("num_comp_vectors", "u32", 272)]),
 "ibv_device_attr": ("infiniband/verbs.h", 232, [("max_mr_size", "u64", 80), ("max_qp", "u32", 108),
                    ("max_qp_wr", "u32", 112), ("max_sge", "u32", 120), ("max_cq", "u32", 128),
                    ("max_cqe", "u32", 132), ("max_mr", "u32", 136), ("max_pd", "u32", 140),
                    ("max_qp_rd_atom", "u32", 144), ("max_qp_init_rd_atom", "u32", 156), ("atomic_cap", "u32", 164),
                    ("max_srq", "u32", 212), ("max_srq_wr", "u32", 216), ("max_srq_sge", "u32", 220),
                    ("phys_port_cnt", "u8", 227)]),
 "ibv_port_attr": ("infiniband/verbs.h", 52, [("state", "u32", 0), ("max_mtu", "u32", 4), ("active_mtu", "u32", 8),
                  ("max_msg_sz", "u32", 20), ("link_layer", "u8", 46)]),
 "ibv_pd": ("infiniband/verbs.h", 16, [("context", "ptr", 0), ("handle", "u32", 8)]),
 "ibv_mr": ("infiniband/verbs.h", 48, [("context", "ptr", 0), ("pd", "ptr", 8), ("addr", "ptr", 16),
           ("length", "u64", 24), ("handle", "u32", 32), ("lkey", "u32", 36), ("rkey", "u32", 40)]),
 "ibv_comp_channel": ("infiniband/verbs.h", 16, [("context", "ptr", 0), ("fd", "u32", 8), ("refcnt", "u32", 12)]),
 "ibv_cq": ("infiniband/verbs.h", 128, [("context", "ptr", 0), ("channel", "ptr", 8), ("cq_context", "ptr", 16),
           ("handle", "u32", 24), ("cqe", "u32", 28)]),
 "ibv_qp": ("infiniband/verbs.h", 160, [("context", "ptr", 0), ("qp_context", "ptr", 8), ("pd", "ptr", 16),
           ("send_cq", "ptr", 24), ("recv_cq", "ptr", 32), ("srq", "ptr", 40), ("handle", "u32", 48),
           ("qp_num", "u32", 52), ("state", "u32", 56), ("qp_type", "u32", 60)]),
 "ibv_qp_cap": ("infiniband/verbs.h", 20, [("max_send_wr", "u32", 0), ("max_recv_wr", "u32", 4),
               ("max_send_sge", "u32", 8), ("max_recv_sge", "u32", 12), ("max_inline_data", "u32", 16)]),
 "ibv_qp_attr": ("infiniband/verbs.h", 144, [("qp_state", "u32", 0), ("min_rnr_timer", "u8", 128),
                ("timeout", "u8", 130), ("retry_cnt", "u8", 131), ("rnr_retry", "u8", 132)]),
 "ibv_qp_init_attr": ("infiniband/verbs.h", 64, [("qp_context", "ptr", 0), ("send_cq", "ptr", 8),
                     ("recv_cq", "ptr", 16), ("srq", "ptr", 24), ("cap", ("struct", "ibv_qp_cap", 20), 32),
                     ("qp_type", "u32", 52), ("sq_sig_all", "u32", 56)]),
 "ibv_srq": ("infiniband/verbs.h", 128, [("context", "ptr", 0), ("srq_context", "ptr", 8), ("pd", "ptr", 16),
            ("handle", "u32", 24)]),
 "ibv_srq_init_attr": ("infiniband/verbs.h", 24, [("srq_context", "ptr", 0),
                      ("attr", ("inline", [("max_wr", "u32", 0), ("max_sge", "u32", 4), ("srq_limit", "u32", 8)], 12), 8)]),
 "ibv_sge": ("infiniband/verbs.h", 16, [("addr", "u64", 0), ("length", "u32", 8), ("lkey", "u32", 12)]),
 "ibv_send_wr": ("infiniband/verbs.h", 128, [("wr_id", "u64", 0), ("next", "ptr", 8), ("sg_list", "ptr", 16),
                ("num_sge", "u32", 24), ("opcode", "u32", 28), ("send_flags", "u32", 32), ("imm_data", "u32", 36),
                ("wr", ("inline", [("rdma", ("inline", [("remote_addr", "u64", 0), ("rkey", "u32", 8)], 16), 0)], 32), 40)]),
 "ibv_recv_wr": ("infiniband/verbs.h", 32, [("wr_id", "u64", 0), ("next", "ptr", 8), ("sg_list", "ptr", 16),
                ("num_sge", "u32", 24)]),
 "ibv_wc": ("infiniband/verbs.h", 48, [("wr_id", "u64", 0), ("status", "u32", 8), ("opcode", "u32", 12),
           ("vendor_err", "u32", 16), ("byte_len", "u32", 20), ("imm_data", "u32", 24), ("qp_num", "u32", 28),
           ("src_qp", "u32", 32), ("wc_flags", "u32", 36)]),
 "ibv_async_event": ("infiniband/verbs.h", 16, [("element", "ptr", 0), ("event_type", "u32", 8)]),
 "rdma_event_channel": ("rdma/rdma_cma.h", 4, [("fd", "u32", 0)]),
 "rdma_cm_id": ("rdma/rdma_cma.h", 416, [("verbs", "ptr", 0), ("channel", "ptr", 8), ("context", "ptr", 16),
               ("qp", "ptr", 24),
               ("route", ("inline", [("addr", ("inline", [("src_addr", ("bytes", 128), 0), ("dst_addr", ("bytes", 128), 128)], 256), 0)], 312), 32),
               ("ps", "u32", 344), ("port_num", "u8", 348), ("event", "ptr", 352), ("send_cq_channel", "ptr", 360),
               ("send_cq", "ptr", 368), ("recv_cq_channel", "ptr", 376), ("recv_cq", "ptr", 384), ("srq", "ptr", 392),
               ("pd", "ptr", 400), ("qp_type", "u32", 408)]),
 "rdma_conn_param": ("rdma/rdma_cma.h", 24, [("private_data", "ptr", 0), ("private_data_len", "u8", 8),
                    ("responder_resources", "u8", 9), ("initiator_depth", "u8", 10), ("flow_control", "u8", 11),
                    ("retry_count", "u8", 12), ("rnr_retry_count", "u8", 13), ("srq", "u8", 14), ("qp_num", "u32", 16)]),
 "rdma_cm_event": ("rdma/rdma_cma.h", 80, [("id", "ptr", 0), ("listen_id", "ptr", 8), ("event", "u32", 16),
                  ("status", "u32", 20),
                  ("param", ("inline", [("conn", ("inline", [("private_data", "ptr", 0), ("private_data_len", "u8", 8)], 24), 0)], 56), 24)]),
 "pollfd": ("poll.h", 8, [("fd", "u32", 0), ("events", "u16", 4), ("revents", "u16", 6)]),
}

def layout_expr(fields, size, name, indent, union=False):
    parts, pos, pad = [], 0, 0
    for fname, ftype, off in fields:
        if union:
            off = 0
        if off > pos:
            parts.append(f"MemoryLayout.paddingLayout({off - pos})")
        if isinstance(ftype, str):
            parts.append(f"{PRIM[ftype][0]}.withName(\"{fname}\")"); fsize = PRIM[ftype][2]
        elif ftype[0] == "bytes":
            parts.append(f"MemoryLayout.sequenceLayout({ftype[1]}, JAVA_BYTE).withName(\"{fname}\")"); fsize = ftype[1]
        elif ftype[0] == "struct":
            parts.append(f"{ftype[1]}.layout().withName(\"{fname}\")"); fsize = ftype[2]
        else:
            parts.append(layout_expr(ftype[1], ftype[2], fname, indent + "    ").rstrip()); fsize = ftype[2]
        if union:
            pos = max(pos, fsize)
        else:
            pos = off + fsize
    if size > pos:
        parts.append(f"MemoryLayout.paddingLayout({size - pos})")
    sep = ",\n" + indent + "    "
    return f"MemoryLayout.structLayout(\n{indent}    " + sep.join(parts) + f"\n{indent}).withName(\"{name}\")"

def accessors(prefix, path, fields, base):
    out = []
    for fname, ftype, off in fields:
        p, o, jname = path + [fname], base + off, "_".join(prefix + [fname])
        elems = ", ".join(f'PathElement.groupElement("{e}")' for e in p)
        if isinstance(ftype, str):
            lay, jt, _ = PRIM[ftype]
            lay_t = "AddressLayout" if lay == "ADDRESS" else "ValueLayout.Of" + {"JAVA_LONG": "Long", "JAVA_INT": "Int", "JAVA_SHORT": "Short", "JAVA_BYTE": "Byte"}[lay]
            out.append(f"""
    private static final {lay_t} {jname}$LAYOUT = ({lay_t}) $LAYOUT.select({elems});
    private static final long {jname}$OFFSET = $LAYOUT.byteOffset({elems});

    /** Offset of {{@code {'.'.join(p)}}} ({o}). */
    public static long {jname}$offset() {{
        return {jname}$OFFSET;
    }}

    /** Reads {{@code {'.'.join(p)}}}. */
    public static {jt} {jname}(MemorySegment struct) {{
        return struct.get({jname}$LAYOUT, {jname}$OFFSET);
    }}

    /** Writes {{@code {'.'.join(p)}}}. */
    public static void {jname}(MemorySegment struct, {jt} fieldValue) {{
        struct.set({jname}$LAYOUT, {jname}$OFFSET, fieldValue);
    }}
""")
        elif ftype[0] in ("bytes", "struct"):
            out.append(f"""
    private static final long {jname}$OFFSET = $LAYOUT.byteOffset({elems});
    private static final long {jname}$SIZE = $LAYOUT.select({elems}).byteSize();

    /** Offset of {{@code {'.'.join(p)}}} ({o}). */
    public static long {jname}$offset() {{
        return {jname}$OFFSET;
    }}

    /** A slice over {{@code {'.'.join(p)}}}. */
    public static MemorySegment {jname}(MemorySegment struct) {{
        return struct.asSlice({jname}$OFFSET, {jname}$SIZE);
    }}
""")
        else:
            out.extend(accessors(prefix + [fname], p, ftype[1], o))
    return out

def emit(name, header, size, fields):
    return f"""// Generated by scripts/regenerate-bindings (scripts/jextract-verbs.structs.py); do not edit.
// In jextract's shape; LayoutProbeTest checks it against the installed headers.
package {PKG};

import java.lang.foreign.AddressLayout;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.ValueLayout;

import static java.lang.foreign.ValueLayout.*;

/**
 * {{@code struct {name}}} from {{@code <{header}>}} (rdma-core 44, x86_64, {size} bytes). Fields that
 * provider-verbs does not use are padding.
 */
@SuppressWarnings("unused")
public final class {name} {{
    private {name}() {{
    }}

    private static final GroupLayout $LAYOUT = {layout_expr(fields, size, name, "    ")};

    /** The struct's layout. */
    public static GroupLayout layout() {{
        return $LAYOUT;
    }}

    /** {{@code sizeof(struct {name})}}. */
    public static long sizeof() {{
        return $LAYOUT.byteSize();
    }}

    /** Allocates one zeroed struct. */
    public static MemorySegment allocate(SegmentAllocator allocator) {{
        return allocator.allocate($LAYOUT);
    }}

    /** Allocates {{@code count}} contiguous zeroed structs. */
    public static MemorySegment allocateArray(long count, SegmentAllocator allocator) {{
        return allocator.allocate(MemoryLayout.sequenceLayout(count, $LAYOUT));
    }}

    /** Element {{@code index}} of an array of these structs. */
    public static MemorySegment asSlice(MemorySegment array, long index) {{
        return array.asSlice($LAYOUT.byteSize() * index, $LAYOUT);
    }}

    /** Views a native pointer to this struct as a segment of its size. */
    public static MemorySegment reinterpret(MemorySegment addr) {{
        return addr.reinterpret($LAYOUT.byteSize());
    }}
{''.join(accessors([], [], fields, 0))}}}
"""

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
      "provider-verbs/src/generated/java", *PKG.split("."))
os.makedirs(out, exist_ok=True)
for n, (h, s, f) in STRUCTS.items():
    with open(os.path.join(out, n + ".java"), "w") as fh:
        fh.write(emit(n, h, s, f))
print(f"wrote {len(STRUCTS)} struct classes to {out}")
