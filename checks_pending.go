package mailauth

import (
	"context"
	"net/netip"
)

// Temporary: the checks land one package at a time.

const spfLookupLimit = 10

func ptrBaseDiagnostics(ip netip.Addr) *PtrDiagnostics {
	d := &PtrDiagnostics{IPVersion: 4, ForwardRecordType: "A"}
	if ip.Unmap().Is6() {
		d.IPVersion, d.ForwardRecordType = 6, "AAAA"
	}
	return d
}

func (r *run) pending(id CheckID) verdict { return r.fallback(id, txtInternal) }

func (r *run) checkMX(ctx context.Context) verdict     { close(r.mxDone); return r.pending(CheckMX) }
func (r *run) checkSPF(ctx context.Context) verdict    { return r.pending(CheckSPF) }
func (r *run) checkDMARC(ctx context.Context) verdict  { return r.pending(CheckDMARC) }
func (r *run) checkMTASTS(ctx context.Context) verdict { return r.pending(CheckMTASTS) }
func (r *run) checkTLSRPT(ctx context.Context) verdict { return r.pending(CheckTLSRPT) }
func (r *run) checkPTR(ctx context.Context) verdict    { return r.pending(CheckPTR) }
func (r *run) checkCAA(ctx context.Context) verdict    { return r.pending(CheckCAA) }
