package io.jfabric.spi;

import io.jfabric.Caps;
import io.jfabric.DomainAttr;
import io.jfabric.EndpointAttr;
import io.jfabric.FabricInfo;
import io.jfabric.Mode;
import io.jfabric.MrMode;
import io.jfabric.Progress;
import io.jfabric.RxAttr;
import io.jfabric.Threading;
import io.jfabric.TxAttr;

/**
 * libfabric's {@code ofi_alter_info}: what a matching provider info looks like once the hints are
 * applied (caps narrowed to what was asked, mr_mode trimmed, the hints' levels and sizes copied in).
 */
final class InfoOverrides {
    private InfoOverrides() {
    }

    /** A copy of {@code prov} altered by {@code hints} (which may be null). */
    static FabricInfo alter(FabricInfo prov, FabricInfo hints, int api) {
        FabricInfo out = prov.copy();
        // computed from the provider's unmodified mr_mode, so before the domain is altered
        out.caps = infoCaps(prov, hints, api);
        if ((out.domainAttr.mrMode & MrMode.LOCAL) != 0 && (api < InfoChecks.V1_5
                || (hints != null && hints.domainAttr != null
                && (hints.domainAttr.mrMode & InfoChecks.MR_LEGACY) != 0))) {
            out.mode |= Mode.LOCAL_MR;
        }
        if (hints != null) {
            out.handle = hints.handle;
        }
        alterDomain(out.domainAttr, hints == null ? null : hints.domainAttr, out.caps, api);
        alterEp(out.epAttr, hints == null ? null : hints.epAttr, out.caps);
        alterRx(out.rxAttr, hints == null ? null : hints.rxAttr, out.caps);
        alterTx(out.txAttr, hints == null ? null : hints.txAttr, out.caps);
        out.fabricAttr.apiVersion = api;
        return out;
    }

    /** ofi_get_caps: the hint's primary caps (or the provider's), its secondary caps, implied directions. */
    static long caps(long infoCaps, long hintCaps, long attrCaps) {
        long caps;
        if (hintCaps == 0) {
            caps = (infoCaps & attrCaps & InfoChecks.PRIMARY) | (attrCaps & InfoChecks.SECONDARY);
        } else {
            caps = (hintCaps & InfoChecks.PRIMARY) | (attrCaps & InfoChecks.SECONDARY);
        }
        if ((caps & (Caps.MSG | Caps.TAGGED)) != 0 && (caps & Caps.MSG_DIRECTIONS) == 0) {
            caps |= attrCaps & Caps.MSG_DIRECTIONS;
        }
        if ((caps & (Caps.RMA | Caps.ATOMIC)) != 0 && (caps & Caps.RMA_DIRECTIONS) == 0) {
            caps |= attrCaps & Caps.RMA_DIRECTIONS;
        }
        return caps;
    }

    /** ofi_get_info_caps: drops REMOTE_READ/WRITE when the hints won't take the RMA-target mr_mode bits. */
    private static long infoCaps(FabricInfo prov, FabricInfo user, int api) {
        if (user == null) {
            return prov.caps;
        }
        long caps = caps(prov.caps, user.caps, prov.caps);
        int provMode = prov.domainAttr.mrMode;
        if (!InfoChecks.rmaTargetAllowed(caps) || (provMode & InfoChecks.MR_RMA_TARGET) == 0) {
            return caps;
        }
        if (user.domainAttr != null) {
            int userMode = user.domainAttr.mrMode;
            if ((api < InfoChecks.V1_5 && userMode == MrMode.UNSPEC) || userMode == MrMode.BASIC
                    || (userMode & provMode & InfoChecks.MR_RMA_TARGET) == (provMode & InfoChecks.MR_RMA_TARGET)) {
                return caps;
            }
        }
        return caps & ~(Caps.REMOTE_WRITE | Caps.REMOTE_READ);
    }

    private static void alterDomain(DomainAttr attr, DomainAttr hints, long infoCaps, int api) {
        int hintMr = hints == null ? 0 : hints.mrMode;
        if ((hintMr & InfoChecks.MR_LEGACY) != 0) {
            attr.mrMode = hintMr;
        } else if (api < InfoChecks.V1_5) {
            attr.mrMode = attr.mrMode != 0 && attr.mrMode != MrMode.SCALABLE ? MrMode.BASIC : MrMode.SCALABLE;
        } else {
            attr.mrMode &= ~InfoChecks.MR_LEGACY;
            if (hints != null && (hintMr & attr.mrMode) != attr.mrMode) {
                attr.mrMode = InfoChecks.capMrMode(infoCaps, attr.mrMode & hintMr);
            }
        }
        attr.caps = caps(infoCaps, hints == null ? 0 : hints.caps, attr.caps);
        if (hints == null) {
            return;
        }
        if (hints.threading != null && hints.threading != Threading.UNSPEC) {
            attr.threading = hints.threading;
        }
        if (hints.controlProgress != null && hints.controlProgress != Progress.UNSPEC) {
            attr.controlProgress = hints.controlProgress;
        }
        if (hints.dataProgress != null && hints.dataProgress != Progress.UNSPEC) {
            attr.dataProgress = hints.dataProgress;
        }
        if (hints.avType != null && hints.avType != io.jfabric.AvType.UNSPEC) {
            attr.avType = hints.avType;
        }
    }

    private static void alterEp(EndpointAttr attr, EndpointAttr hints, long infoCaps) {
        if (hints == null) {
            return;
        }
        if ((infoCaps & (Caps.RMA | Caps.ATOMIC)) != 0) {
            if (hints.maxOrderRawSize != 0) {
                attr.maxOrderRawSize = hints.maxOrderRawSize;
            }
            if (hints.maxOrderWarSize != 0) {
                attr.maxOrderWarSize = hints.maxOrderWarSize;
            }
            if (hints.maxOrderWawSize != 0) {
                attr.maxOrderWawSize = hints.maxOrderWawSize;
            }
        }
        if (hints.txCtxCnt != 0) {
            attr.txCtxCnt = hints.txCtxCnt;
        }
        if (hints.rxCtxCnt != 0) {
            attr.rxCtxCnt = hints.rxCtxCnt;
        }
    }

    private static void alterRx(RxAttr attr, RxAttr hints, long infoCaps) {
        attr.caps = caps(infoCaps, hints == null ? 0 : hints.caps, attr.caps);
        if (hints == null) {
            return;
        }
        attr.opFlags = hints.opFlags;
        attr.totalBufferedRecv = hints.totalBufferedRecv;
        if (hints.size != 0) {
            attr.size = hints.size;
        }
        if (hints.iovLimit != 0) {
            attr.iovLimit = hints.iovLimit;
        }
    }

    private static void alterTx(TxAttr attr, TxAttr hints, long infoCaps) {
        attr.caps = caps(infoCaps, hints == null ? 0 : hints.caps, attr.caps);
        if (hints == null) {
            return;
        }
        attr.opFlags = hints.opFlags;
        if (hints.injectSize != 0) {
            attr.injectSize = hints.injectSize;
        }
        if (hints.size != 0) {
            attr.size = hints.size;
        }
        if (hints.iovLimit != 0) {
            attr.iovLimit = hints.iovLimit;
        }
        if (hints.rmaIovLimit != 0) {
            attr.rmaIovLimit = hints.rmaIovLimit;
        }
    }
}
