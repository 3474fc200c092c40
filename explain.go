package mailauth

import (
	"github.com/mailauth/mailauth/caa"
	"github.com/mailauth/mailauth/dkim"
	"github.com/mailauth/mailauth/spf"
	"github.com/mailauth/mailauth/tlsrpt"
)

// The explanations of findings whose verdict would otherwise stand alone:
// every judged finding has details (explain_test.go fails when one has
// none). Like every catalogue text they state facts and counts, never a
// value from the wire and never a remediation (the contract's responses
// carry none).

// SPF: the lookup limit, several records, a record that does not parse.
var (
	spfFactLimitWhy = msg(
		"RFC 7208 规定，一次 SPF 评估中引起 DNS 查询的项（include、a、mx、ptr、exists 和 redirect）最多 %d 个，以免检查一封邮件耗费过多查询；ip4、ip6 和 all 不计入。",
		"RFC 7208 allows at most %d DNS-causing terms (include, a, mx, ptr, exists and redirect) in one SPF evaluation, so that checking a message stays cheap; ip4, ip6 and all do not count.",
		spf.MaxLookups)
	spfFactIncludeShare = msg(
		"记录中的 %[1]d 个 include 共占 %[2]d 次查询，记录自身的其他项占 %[3]d 次。",
		"The record's %d includes take %d of the lookups; its other terms take %d.")
	spfFactIncludesEach = msg(
		"每个 include 都只占 1 次查询（它们引用的记录不再引起别的查询），所以 include 占用的查询次数就等于 include 的个数。",
		"Each include costs exactly 1 lookup (the records behind them cause no further lookups), so the includes' share of the count is simply their number.")
	spfFactOwnTerms = msg(
		"记录中没有 include，这些查询全部来自记录自身的 a、mx、ptr、exists 项和 redirect。",
		"The record has no include: all of these lookups come from its own a, mx, ptr and exists terms and its redirect.")
	spfFactMultiple = msg(
		"接收方不会从中挑选一条：只要有不止一条以 v=spf1 开头的 TXT 记录，SPF 评估就以永久错误结束，其中任何一条都不会生效。",
		"Receivers do not choose between them: with more than one TXT record starting with v=spf1, evaluation ends in a permanent error and none of them takes effect.")
	spfFactUnparsed = msg(
		"无法解析的记录完全不会被评估：对每一封邮件，接收方都只会得到永久错误，效果等同于没有可用的 SPF。",
		"A record that does not parse is not evaluated at all: receivers get a permanent error for every message, as if there were no usable SPF.")
)

// spfExplain returns the sentences that explain the SPF findings no other
// fact explains: the lookup limit (with how the includes share the
// count), several records, and a syntax error without a term position.
func spfExplain(res spf.Result, has map[spf.Code]bool) []LocalizedText {
	var out []LocalizedText
	if has[spf.CodeMultipleRecords] {
		out = append(out, spfFactMultiple.with())
	}
	if res.SyntaxTerm == 0 && spfUnparsed(res.Findings) {
		out = append(out, spfFactUnparsed.with())
	}
	if has[spf.CodeLookupLimitExceeded] {
		out = append(out, spfLimitShare(res)...)
		out = append(out, spfFactLimitWhy.with())
	}
	return out
}

// spfUnparsed reports a syntax error of the domain's own record (the
// verdict spfSyntax).
func spfUnparsed(codes []spf.Code) bool {
	for _, c := range codes {
		if r, ok := spfRules[c]; ok && r.say == spfSyntax.say {
			return true
		}
	}
	return false
}

// spfLimitShare says how the includes of the domain's own record share
// the lookup count of a policy over the limit.
func spfLimitShare(res spf.Result) []LocalizedText {
	total := valueOf(res.LookupCount)
	if len(res.Includes) == 0 {
		return []LocalizedText{spfFactOwnTerms.with()}
	}
	sum, most := 0, 0
	for _, inc := range res.Includes {
		sum += inc.Lookups
		most = max(most, inc.Lookups)
	}
	out := []LocalizedText{spfFactIncludeShare.with(len(res.Includes), sum, max(total-sum, 0))}
	if most == 1 {
		out = append(out, spfFactIncludesEach.with())
	}
	return out
}

// DKIM: what each finding that leaves no key means for a verifier.
var dkimWhy = map[dkim.Code]text{
	dkim.CodeNoRecord:             msg("验证方按签名中的选择器在对应的 _domainkey 名称下查找公钥；这里查不到任何 TXT 记录，签名就无法验证，邮件会被当作签名无效。", "Verifiers look the key up by the signature's selector under its _domainkey name; with no TXT record there, the signature cannot be verified and counts as failed."),
	dkim.CodeDanglingCNAME:        msg("别名指向的名称不存在时，查找会以“名称不存在”结束，效果与没有密钥记录相同。", "When an alias points to a name that does not exist, the lookup ends with no such name, just as if there were no key record."),
	dkim.CodeMultipleRecords:      msg("RFC 6376 只允许一个选择器下有一条密钥记录；有多条时，不同的验证方可能取到不同的记录。", "RFC 6376 expects one key record per selector; with several, different verifiers may pick different records."),
	dkim.CodeNotDKIMRecord:        msg("验证方只接受由“标签=值”组成、以分号分隔的密钥记录，其他内容的 TXT 记录都会被丢弃。", "Verifiers accept only a semicolon-separated list of tag=value pairs as a key record and discard any other TXT content."),
	dkim.CodeInvalidVersion:       msg("v= 标签是可选的，但一旦出现，它的值就必须是 DKIM1，否则整条记录都会被丢弃。", "The v= tag is optional, but when present its value must be DKIM1, or the whole record is discarded."),
	dkim.CodeVersionNotFirst:      msg("RFC 6376 要求 v= 标签如果出现，必须是记录中的第一个标签。", "RFC 6376 requires the v= tag, when present, to be the first tag of the record."),
	dkim.CodeDuplicateTag:         msg("RFC 6376 规定，同一个标签出现两次的记录无效，验证方会丢弃整条记录，而不是取其中一个值。", "Under RFC 6376 a record that names a tag twice is invalid: verifiers discard the whole record rather than pick one of the values."),
	dkim.CodeKeyMissing:           msg("p= 是密钥记录唯一必需的标签；没有它，记录中就没有可供验证的公钥。", "p= is the one required tag of a key record; without it the record holds no public key to verify with."),
	dkim.CodeKeyRevoked:           msg("p= 标签存在但值为空，这是 RFC 6376 规定的吊销方式：验证方会把用该密钥做的签名判为失败，而不是当作未签名。", "The p= tag is present but empty, which is how RFC 6376 revokes a key: verifiers fail signatures made with it instead of treating mail as unsigned."),
	dkim.CodeInvalidBase64:        msg("p= 的值必须是 Base64 编码的公钥；无法解码时，验证方得不到任何密钥。", "The value of p= must be a Base64-encoded public key; when it cannot be decoded, verifiers get no key at all."),
	dkim.CodeInvalidKey:           msg("p= 的值能按 Base64 解码，但解码结果不是 RSA 公钥结构，验证方无法使用。", "The value of p= decodes from Base64, but the result is not an RSA public key structure, so verifiers cannot use it."),
	dkim.CodeUnknownKeyType:       msg("验证方只实现了 rsa 和 ed25519 两种密钥类型（dsa 等从未被 DKIM 定义），其他 k= 值的记录会被当作没有可用密钥。", "Verifiers implement only the rsa and ed25519 key types (dsa and others were never defined for DKIM); a record with another k= value has no usable key."),
	dkim.CodeSHA256NotAllowed:     msg("h= 标签列出密钥允许的哈希算法；不含 sha256 时，现代签名都不被允许，而 RFC 8301 已禁止验证方接受 SHA-1。", "The h= tag lists the hash algorithms the key allows; without sha256 no modern signature is allowed, and RFC 8301 forbids verifiers to accept SHA-1."),
	dkim.CodeServiceNotEmail:      msg("s= 标签限定密钥的用途；不含 email 或 * 时，验证方不会用它验证邮件签名。", "The s= tag limits what the key may be used for; without email or *, verifiers do not use it for mail signatures."),
	dkim.CodeInvalidEd25519Length: msg("Ed25519 公钥以原始 %d 字节的形式放在 p= 中，而不是像 RSA 那样的证书结构。", "An Ed25519 public key goes in p= as its raw %d bytes, not in a certificate structure like an RSA key.", dkim.Ed25519KeySize),
	dkim.CodeKeyTooShort:          msg("RFC 8301 要求验证方拒绝短于 %d 位的 RSA 密钥所做的签名。", "RFC 8301 requires verifiers to reject signatures made with RSA keys shorter than %d bits.", dkim.MinRSABits),
}

// dkimExplain returns the sentence of the worst finding that has one in
// dkimWhy, for a verdict whose other facts say nothing about it.
func dkimExplain(res dkim.Result) []LocalizedText {
	for _, r := range sortRules(rulesFor(res.Findings, dkimRules, nil)) {
		for _, c := range res.Findings {
			if dkimRules[c].say == r.say {
				if t, ok := dkimWhy[c]; ok {
					return []LocalizedText{t.with()}
				}
			}
		}
	}
	return nil
}

// MX: a name that does not exist, a name with neither MX nor address.
var (
	mxFactNXDomain = msg(
		"DNS 对该名称返回了 NXDOMAIN（名称不存在）：它没有 MX 记录、地址记录或其他任何记录，发往该域名的邮件都会被退回。",
		"The DNS answered NXDOMAIN (no such name): the domain has no MX, no address and no other records, so mail to it bounces.")
	mxFactNone = msg(
		"该名称存在，但 MX 查询没有记录，A 和 AAAA 查询也没有地址，发件方找不到可以投递的服务器，会把邮件退回。",
		"The name exists, but its MX lookup found no record and its A and AAAA lookups found no address, so senders find no server to deliver to and bounce the mail.")
)

// TLS-RPT: several records.
var rptFactMultiple = msg(
	"RFC 8460 要求 _smtp._tls 名称下恰好有一条 v=TLSRPTv1 记录；有多条时，发件方不会选用其中任何一条。",
	"RFC 8460 requires exactly one v=TLSRPTv1 record at the _smtp._tls name; when there are several, senders use none of them.")

// CAA: the states without issuers to count.
var (
	caaFactCritical = msg(
		"RFC 8659 规定，证书颁发机构遇到设置了关键标志（128）而自己不认识的属性时，必须拒绝签发。适用的 CAA 记录共 %d 条。",
		"Under RFC 8659, a certificate authority that meets a property with the critical flag (128) and a tag it does not know must refuse to issue. The applicable CAA set has %d records.")
	caaFactForbid = msg(
		"issue 属性的值为空（;）或格式错误时都不授权任何证书颁发机构，而这里的 issue 属性都是这两种。适用的 CAA 记录共 %d 条。",
		"An issue property with an empty value (;) or a malformed one authorizes no certificate authority, and every issue property here is one of those. The applicable CAA set has %d records.")
	caaFactNoIssue = msg(
		"只有 issue 和 issuewild 属性会限制 TLS 证书的签发；适用的 %d 条 CAA 记录中没有这两种属性（例如只有 iodef 或 issuemail）。",
		"Only issue and issuewild properties limit TLS certificate issuance; none of the %d applicable CAA records is one of them (there may be only iodef or issuemail, for example).")
	caaFactWildIssuers = msg("获得通配符证书授权的证书颁发机构共 %d 个。", "Certificate authorities authorized for wildcard certificates: %d.")
)

// caaExplain returns the sentences of a found set's state that its other
// facts do not state.
func caaExplain(set caa.Set) []LocalizedText {
	switch {
	case set.CriticalUnknown:
		return []LocalizedText{caaFactCritical.with(set.PropertyCount)}
	case !set.CanIssue:
		return []LocalizedText{caaFactForbid.with(set.PropertyCount)}
	case set.IssuerCount > 0:
		return nil
	case set.Restricts:
		return []LocalizedText{caaFactWildIssuers.with(set.WildcardIssuerCount)}
	}
	return []LocalizedText{caaFactNoIssue.with(set.PropertyCount)}
}

// PTR: no PTR record.
var ptrFactNoPTR = msg(
	"反向查询（in-addr.arpa 或 ip6.arpa 下）没有找到 PTR 记录；反向解析由 IP 地址段的持有者（通常是网络或云服务商）设置。",
	"The reverse lookup (under in-addr.arpa or ip6.arpa) found no PTR record; reverse DNS is set by whoever holds the address block, usually the network or cloud provider.")

// tlsrptExplain returns the sentence on several TLS-RPT records.
func tlsrptExplain(res tlsrpt.Result) []LocalizedText {
	if valueOf(res.RecordCount) > 1 {
		return []LocalizedText{rptFactMultiple.with()}
	}
	return nil
}
