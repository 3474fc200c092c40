package httpapi

import "github.com/mailauth/mailauth"

// The texts of the help pages (/help/<check>/): what each check looks at,
// what a good set-up looks like, and how each finding of the judgement
// tables is usually fixed. They are generic, never about a scanned domain,
// so the API's responses still carry no remediation. TestHelpCoversRules
// fails when a verdict of mailauth.StatusRules has no fix here.

// bi is a bilingual text.
func bi(zh, en string) mailauth.LocalizedText { return mailauth.LocalizedText{ZH: zh, EN: en} }

// checkHelp is the fixed part of one check's help page.
type checkHelp struct {
	// Looks says what the check looks at.
	Looks mailauth.LocalizedText
	// Good says what a good set-up looks like.
	Good mailauth.LocalizedText
	// Example is a good record, as it would appear in a zone file.
	Example string
}

// checkHelps are the help pages' fixed parts, by check.
var checkHelps = map[mailauth.CheckID]checkHelp{
	mailauth.CheckMX: {
		Looks: bi("读取域名的 MX 记录，并查询每台收件服务器的 A 和 AAAA 地址：服务器必须有公网地址，名称必须是有效的主机名；也识别表示“不收邮件”的空 MX（RFC 7505）。",
			"Reads the domain's MX records and looks up the A and AAAA addresses of each mail server: each must have a public address and a valid host name. A null MX (RFC 7505), which says the domain accepts no mail, is recognised too."),
		Good: bi("一条或几条 MX 记录，指向有公网 IPv4（最好也有 IPv6）地址的主机名，而不是 IP 地址或别名（CNAME）。不收邮件的域名只发布一条 “MX 0 .”。",
			"One or a few MX records naming host names (not IP addresses, not CNAME aliases) with public IPv4, ideally also IPv6, addresses. A domain that receives no mail publishes exactly one \"MX 0 .\"."),
		Example: "example.com.      MX 10 mx1.example.com.\nexample.com.      MX 20 mx2.example.com.\nmx1.example.com.  A  203.0.113.10",
	},
	mailauth.CheckSPF: {
		Looks: bi("读取域名以 v=spf1 开头的 TXT 记录，展开其中的 include 和 redirect，统计评估所需的 DNS 查询次数（上限 10 次）和无结果查询次数（上限 2 次），并检查结尾的 all 机制。",
			"Reads the domain's TXT record that starts with v=spf1, expands its includes and redirects, counts the DNS lookups evaluation needs (limit 10) and the lookups that return nothing (limit 2), and checks the closing all mechanism."),
		Good: bi("只有一条 SPF 记录，列出所有实际发信的服务器或服务商（ip4、ip6、include），总查询次数不超过 10 次，并以 -all（或过渡期的 ~all）结尾。",
			"Exactly one SPF record that lists every server or provider that really sends your mail (ip4, ip6, include), needs at most 10 lookups in all, and ends in -all (or ~all while you migrate)."),
		Example: "example.com.  TXT \"v=spf1 mx ip4:203.0.113.0/24 include:_spf.mail-provider.example -all\"",
	},
	mailauth.CheckDMARC: {
		Looks: bi("按 RFC 9989 的树形查找，从 _dmarc.<域名> 开始向上寻找适用的 DMARC 记录，读取策略（p、sp、np）、对齐方式、测试模式和汇总报告地址（rua）。",
			"Finds the DMARC record that applies with the RFC 9989 tree walk, starting at _dmarc.<domain> and climbing towards the organisational domain, and reads its policy (p, sp, np), alignment modes, test mode and aggregate-report addresses (rua)."),
		Good: bi("一条有效记录，策略为 reject（或至少 quarantine），并用 rua 接收汇总报告。通常先用 p=none 收集报告，确认所有合法邮件都通过 SPF 或 DKIM 对齐后，再逐步收紧。",
			"One valid record with policy reject (or at least quarantine) and a rua address for aggregate reports. The usual path starts at p=none to collect reports, then tightens once every legitimate source passes aligned SPF or DKIM."),
		Example: "_dmarc.example.com.  TXT \"v=DMARC1; p=reject; rua=mailto:dmarc-reports@example.com\"",
	},
	mailauth.CheckDKIM: {
		Looks: bi("读取 <选择器>._domainkey.<域名> 下的 DKIM 公钥记录，检查版本、密钥类型、密钥长度、撤销状态、测试模式以及 h= 和 s= 限制。只有提供选择器时才检查，本服务从不猜测选择器。",
			"Reads the DKIM key record at <selector>._domainkey.<domain> and checks its version, key type, key length, revocation, test mode and the h= and s= restrictions. It runs only for a selector you supply; the service never guesses one."),
		Good: bi("选择器下只有一条记录，以 v=DKIM1 开头，含 2048 位 RSA 公钥（或 Ed25519 公钥），不处于测试模式。选择器可以在已发邮件的 DKIM-Signature 头中 s= 标签找到。",
			"One record at the selector, starting with v=DKIM1, holding a 2048-bit RSA (or an Ed25519) public key, not in test mode. The selector is the s= tag of the DKIM-Signature header of a message you sent."),
		Example: "s1._domainkey.example.com.  TXT \"v=DKIM1; k=rsa; p=MIIBIjANBgkqh…IDAQAB\"",
	},
	mailauth.CheckMTASTS: {
		Looks: bi("读取 _mta-sts.<域名> 的声明记录，通过 HTTPS 从 mta-sts.<域名>/.well-known/mta-sts.txt 获取策略文件，检查模式、有效期（max_age）以及 mx 模式是否覆盖所有收件服务器。",
			"Reads the _mta-sts.<domain> announcement, fetches the policy over HTTPS from mta-sts.<domain>/.well-known/mta-sts.txt, and checks its mode, its lifetime (max_age) and whether its mx patterns cover every mail server."),
		Good: bi("一条 v=STSv1 声明记录；策略文件以 text/plain 提供，证书有效，mode 为 enforce，mx 行覆盖所有 MX 主机，max_age 为一周或更长。更改策略时同时更新记录中的 id。",
			"One v=STSv1 announcement; a policy file served as text/plain with a valid certificate, mode enforce, mx lines covering every MX host and a max_age of a week or more. Change the id in the record whenever the policy changes."),
		Example: "_mta-sts.example.com.  TXT \"v=STSv1; id=20260101T000000\"\n\n# https://mta-sts.example.com/.well-known/mta-sts.txt\nversion: STSv1\nmode: enforce\nmx: mx1.example.com\nmax_age: 604800",
	},
	mailauth.CheckTLSRPT: {
		Looks: bi("读取 _smtp._tls.<域名> 下的 TLSRPTv1 记录和其中的报告地址（rua）：发件方在加密投递失败时会向这些地址发送报告。",
			"Reads the TLSRPTv1 record at _smtp._tls.<domain> and its report addresses (rua), where senders send reports when encrypted delivery fails."),
		Good: bi("只有一条记录，含一个 rua 字段，列出一个或多个 mailto: 或 https: 地址。",
			"Exactly one record with one rua field listing one or more mailto: or https: addresses."),
		Example: "_smtp._tls.example.com.  TXT \"v=TLSRPTv1; rua=mailto:tls-reports@example.com\"",
	},
	mailauth.CheckPTR: {
		Looks: bi("查询发件 IP 的反向解析（PTR）名称，再对这些名称做 A 或 AAAA 查询，看是否有名称指回同一个 IP（正向确认）。只有提供发件 IP 时才检查。",
			"Looks up the reverse DNS (PTR) names of the sending IP, then the A or AAAA addresses of those names, to see whether one points back to the same IP (forward confirmation). It runs only for a sending IP you supply."),
		Good: bi("发件 IP 只有一个 PTR 名称，例如 mail.example.com，它是有效的主机名，并且其 A 或 AAAA 记录正好指回该 IP。PTR 记录由 IP 地址的持有者（通常是主机商或网络运营商）设置。",
			"The sending IP has one PTR name such as mail.example.com, a valid host name whose A or AAAA record points back to that IP. The PTR record is set by whoever holds the address, usually the hosting provider or network operator."),
		Example: "25.113.0.203.in-addr.arpa.  PTR mail.example.com.\nmail.example.com.           A   203.0.113.25",
	},
	mailauth.CheckCAA: {
		Looks: bi("按 RFC 8659 从域名向上查找第一组 CAA 记录，检查其中的 issue、issuewild、iodef 等属性；也检查 MTA-STS 策略主机 mta-sts.<域名> 能否获得证书。",
			"Finds the first CAA record set from the domain upwards (RFC 8659) and checks its issue, issuewild, iodef and other properties; it also checks that the MTA-STS policy host, mta-sts.<domain>, can obtain a certificate."),
		Good: bi("用 issue 属性列出你实际使用的证书颁发机构；如需通配符证书再加 issuewild；可以用 iodef 接收违规报告。",
			"issue properties naming the certificate authorities you actually use, issuewild if you need wildcard certificates, and optionally an iodef address for reports."),
		Example: "example.com.  CAA 0 issue \"letsencrypt.org\"\nexample.com.  CAA 0 iodef \"mailto:security@example.com\"",
	},
}

// findingFixes say how each verdict of the judgement tables is usually
// fixed (or why nothing needs fixing), keyed by the verdict's English
// sentence as mailauth.StatusRules gives it (counts written N).
var findingFixes = map[string]mailauth.LocalizedText{
	// Every check.
	"Could not be determined: a DNS lookup gave no conclusive answer.":            bi("重新扫描。如果反复出现，可能是该域名的记录需要的 DNS 查询次数超出了一次扫描的上限（例如 SPF 引用链过长），或者它的服务器返回了无法使用的应答（可以用 dig 检查）；这两种情况都值得修复。", "Scan again. If it keeps happening, the domain's records may need more DNS lookups than one scan allows (a very long SPF include chain, say), or its servers send replies that cannot be used (check them with dig): both are worth fixing."),
	"Could not be determined: the check did not finish within the scan deadline.": bi("稍后重新检查。DNS 服务器响应很慢或引用链很长时会出现这种情况。", "Scan again later. Slow DNS servers or very long include chains cause this."),
	"Could not be determined: the check hit an internal error.":                   bi("稍后重新检查；如果反复出现，请向本服务报告。", "Scan again later; if it keeps happening, report it to the service."),

	// MX.
	"There is no MX record and the domain has no A or AAAA record, so it cannot receive mail.":                                         bi("发布指向收件服务器的 MX 记录；如果域名不收邮件，发布 “MX 0 .”（空 MX）。", "Publish MX records naming your mail servers; if the domain receives no mail, publish \"MX 0 .\" (null MX)."),
	"The domain does not exist in the DNS.":                                                                                            bi("检查域名拼写。如果拼写无误，请确认域名已注册，并在注册商处设置了正确的域名服务器。", "Check the spelling. If it is right, make sure the domain is registered and delegated to the right name servers at the registrar."),
	"None of the mail servers is usable (missing names, no address, or only non-public addresses), so the domain cannot receive mail.": bi("为每个 MX 主机名添加公网 A 或 AAAA 记录，或把 MX 改为指向服务商给出的主机名。", "Give each MX host name public A or AAAA records, or point the MX records at the host names your mail provider gives you."),
	"A null MX record is published together with other MX records, which is invalid.":                                                  bi("二选一：收邮件就删除 “MX 0 .”，不收邮件就删除其他 MX 记录。", "Choose one: delete \"MX 0 .\" if the domain receives mail, or delete the other MX records if it does not."),
	"There is no MX record, so senders fall back to delivering to the domain's own address (implicit MX).":                             bi("显式发布 MX 记录；如果域名不收邮件，发布 “MX 0 .”。", "Publish explicit MX records; if the domain receives no mail, publish \"MX 0 .\"."),
	"Unusable mail servers: N of N (missing names, no address, or only non-public addresses).":                                         bi("修复或删除没有公网地址的 MX 主机。", "Fix or remove the MX hosts that have no public address."),
	"An MX record names an IP address instead of a host name, which is invalid.":                                                       bi("为该地址设置一个主机名（A 或 AAAA 记录），让 MX 指向这个主机名。", "Give the address a host name (an A or AAAA record) and let the MX record name that host."),
	"Mail servers whose address lookups gave no conclusive answer: N.":                                                                 bi("稍后重新检查；如果反复出现，请检查这些主机名所在区域的 DNS 服务器。", "Scan again later; if it keeps happening, check the DNS servers of the zones those host names are in."),
	"The null MX record is not in the standard form (exactly one record with preference 0).":                                           bi("只保留一条 “MX 0 .” 记录。", "Keep exactly one record: \"MX 0 .\"."),
	"A mail server has only IPv6 addresses, so IPv4-only senders cannot deliver to it.":                                                bi("为该服务器再添加一个 IPv4（A）地址。", "Add an IPv4 (A) address to that server."),
	"A mail server name is an alias (CNAME), which RFC 2181 forbids; some senders refuse to deliver to it.":                            bi("让 MX 直接指向别名的目标主机名。", "Point the MX record at the alias's target host name directly."),
	"A mail server name is not a valid host name.":                                                                                     bi("改用只含字母、数字和连字符的主机名。", "Use a host name made of letters, digits and hyphens only."),
	"The same mail server appears in more than one MX record.":                                                                         bi("删除重复的 MX 记录。", "Delete the duplicate MX records."),
	"There are more than 10 distinct mail servers; only the 10 with the lowest preference values were checked.":                        bi("通常不需要这么多 MX 记录，可以精简到几台。", "So many MX records are rarely needed; a few are enough."),
	"MX records were found and every mail server resolves to a public address.":                                                        bi("无需处理。", "Nothing to fix."),
	"The domain publishes a null MX record (RFC 7505): it accepts no mail.":                                                            bi("如果该域名确实不收邮件，无需处理；否则删除空 MX 并发布真正的 MX 记录。", "Nothing to fix if the domain really receives no mail; otherwise replace the null MX with real MX records."),

	// SPF.
	"Evaluating the SPF record takes at least N DNS lookups, more than the limit of 10, so receivers treat it as a permanent error.":                                                                        bi("删除不再使用的 include；把固定地址写成 ip4/ip6；必要时把部分发信服务移到子域名，使总查询次数不超过 10 次。", "Remove includes you no longer use, write fixed addresses as ip4/ip6, and if needed move some senders to a subdomain, so that no more than 10 lookups remain."),
	"Evaluating the SPF record takes N DNS lookups, more than the limit of 10, so receivers treat it as a permanent error.":                                                                                 bi("删除不再使用的 include；把固定地址写成 ip4/ip6；必要时把部分发信服务移到子域名，使总查询次数不超过 10 次。", "Remove includes you no longer use, write fixed addresses as ip4/ip6, and if needed move some senders to a subdomain, so that no more than 10 lookups remain."),
	"N SPF records were found; a domain may publish only one, and receivers treat this as a permanent error.":                                                                                               bi("把所有记录合并成一条 v=spf1 记录，只保留一个 all。", "Merge them into one v=spf1 record with a single all at the end."),
	"N lookups returned no records, more than the limit of 2, so receivers treat the record as a permanent error.":                                                                                          bi("删除指向已不存在名称的 include、a、mx 或 exists。", "Remove the include, a, mx or exists terms that name something that no longer exists."),
	"A mechanism with prefix length 0 (such as ip4:0.0.0.0/0 or a/0) covers every address, which authorizes every server to send as the domain.":                                                            bi("改为实际发信服务器的网段，例如 ip4:203.0.113.0/24。", "Replace it with the networks your mail really leaves from, such as ip4:203.0.113.0/24."),
	"An exists mechanism checks a name that exists whatever the sending server (a fixed name, or one answered by a wildcard), so it matches every server and authorizes all of them to send as the domain.": bi("让 exists 检查的名称包含发件人相关的宏（例如 %{i}），或删除该机制。", "Make the exists name depend on the sender through a macro such as %{i}, or remove it."),
	"An include or redirect points to a domain without exactly one valid SPF record; receivers treat this as a permanent error.":                                                                            bi("修正 include 或 redirect 的域名拼写，或删除已停用服务的 include。", "Fix the spelling of the included or redirected domain, or remove the include of a service you no longer use."),
	"An included policy passes every server (for example, it ends in +all), so the domain in effect authorizes every server in the world to send as it.":                                                    bi("删除该 include，或请其维护方把结尾改为 -all 或 ~all。", "Remove that include, or ask whoever runs it to end it in -all or ~all."),
	"An mx mechanism finds more than 10 MX records (records naming the same server count separately), which receivers treat as a permanent error.":                                                          bi("改用 ip4/ip6 列出这些服务器的地址，或减少 MX 记录。", "List the servers' addresses with ip4/ip6 instead, or publish fewer MX records."),
	"The SPF record has a syntax error; receivers treat it as a permanent error (permerror).":                                                                                                               bi("按详情中给出的位置改正那一项；常见问题是拼写错误、多余的空格或缺少冒号。", "Correct the term the details point at; typical causes are typos, stray spaces or a missing colon."),
	"The includes or redirects form a loop, which receivers treat as a permanent error.":                                                                                                                    bi("删除形成循环的 include 或 redirect。", "Remove the include or redirect that closes the loop."),
	"The record ends in +all, which authorizes every server in the world to send as the domain.":                                                                                                            bi("把 +all 改为 -all（或过渡期的 ~all）。", "Change +all to -all (or ~all while you migrate)."),
	"The record ends in ?all, which says nothing about unlisted servers and so protects nothing.":                                                                                                           bi("列出所有发信服务器后，把 ?all 改为 -all 或 ~all。", "Once every sender is listed, change ?all to -all or ~all."),
	"There is no SPF record, so receivers cannot tell which servers may send mail for the domain.":                                                                                                          bi("发布一条 v=spf1 记录，列出实际发信的服务器并以 -all 结尾；不发邮件的域名发布 “v=spf1 -all”。", "Publish one v=spf1 record listing the servers that send your mail, ending in -all; a domain that sends no mail publishes \"v=spf1 -all\"."),
	"A mechanism names something that is not a valid DNS name (an empty label, or a label longer than 63 characters); some receivers treat it as no match, others as a permanent error.":                    bi("改正该机制中的域名（常见原因是多了一个点）。", "Correct the name in that term (a doubled dot is a common cause)."),
	"Evaluation needs exactly 10 DNS lookups and the record also has an ignored redirect; some receivers count it anyway, reach 11 and return a permanent error. Removing the unused redirect avoids this.": bi("删除不起作用的 redirect。", "Remove the unused redirect."),
	"Some a, mx or exists lookups gave no conclusive answer; receivers would get a temporary error (temperror).":                                                                                            bi("稍后重新检查；如果反复出现，请检查这些名称所在的 DNS 服务器。", "Scan again later; if it keeps happening, check the DNS servers of those names."),
	"Some include or redirect targets gave no conclusive answer, so the policy could not be expanded completely; receivers would get a temporary error (temperror).":                                        bi("稍后重新检查；如果反复出现，请检查被引用域名的 DNS 服务器。", "Scan again later; if it keeps happening, check the DNS servers of the included domains."),
	"The SPF record is longer than 512 bytes, which can make DNS lookups fail at some receivers.":                                                                                                           bi("精简记录：合并网段，删除不再使用的机制，或把一部分移到 include 的子记录中。", "Shorten it: merge networks, drop terms you no longer use, or move some of them into an included record."),
	"The include chain is longer than this service expands, so it was not checked completely.":                                                                                                              bi("减少嵌套的 include 层数。", "Reduce how deeply includes nest."),
	"The record does not end with an all mechanism, so unlisted servers get a neutral result.":                                                                                                              bi("在记录末尾加上 -all（或 ~all）。", "Add -all (or ~all) at the end of the record."),
	"The SPF record is longer than 450 bytes, close to the safe size of a DNS answer.":                                                                                                                      bi("考虑精简记录，给以后的修改留出余地。", "Consider shortening it to leave room for later changes."),
	"The record uses the %{p} macro, which depends on reverse DNS and is slow and unreliable; RFC 7208 advises against it.":                                                                                 bi("改用 ip4/ip6 或 include 列出发信服务器。", "List the senders with ip4/ip6 or include instead."),
	"The record uses the ptr mechanism, which is deprecated: slow, unreliable, and ignored by some receivers.":                                                                                              bi("删除 ptr，改用 ip4/ip6 或 a 列出发信服务器。", "Remove ptr and list the senders with ip4/ip6 or a instead."),
	"There are terms after all; they are never evaluated.":                                                                                                                                                  bi("把需要的机制移到 all 之前，删除其余部分。", "Move the terms you need before all and delete the rest."),
	"The SPF record is valid and ends in -all or ~all, so servers it does not list get a fail or soft fail.":                                                                                                bi("无需处理。新增发信服务时记得更新记录。", "Nothing to fix. Remember to update it when you add a sending service."),

	// DMARC.
	"No DMARC policy was found, so receivers do not refuse mail that spoofs the domain.":                                                                                                                                            bi("在 _dmarc.<域名> 发布记录，可以先用 “v=DMARC1; p=none; rua=mailto:…” 收集报告，再逐步收紧到 reject。", "Publish a record at _dmarc.<domain>; you can start with \"v=DMARC1; p=none; rua=mailto:…\" to collect reports, then move to reject."),
	"A DMARC record was found, but it has no valid policy and no usable aggregate-report address, so receivers apply no DMARC to the domain.":                                                                                       bi("在记录中加上有效的 p= 标签（none、quarantine 或 reject）和 rua 地址。", "Add a valid p= tag (none, quarantine or reject) and a rua address to the record."),
	"The DMARC policy is none: it only collects reports and does not stop spoofed mail.":                                                                                                                                            bi("阅读汇总报告，确认所有合法邮件都通过对齐的 SPF 或 DKIM 后，改为 p=quarantine，再改为 p=reject。", "Read the aggregate reports; once all legitimate mail passes aligned SPF or DKIM, move to p=quarantine, then p=reject."),
	"The policy tag is missing or invalid; because the record has a valid aggregate-report address, receivers treat it as none.":                                                                                                    bi("加上或改正 p= 标签。", "Add or correct the p= tag."),
	"The record is in test mode (t=y), so receivers apply the policy one level lower.":                                                                                                                                              bi("测试完成后删除 t=y。", "Remove t=y once testing is over."),
	"The domain's own _dmarc name has several DMARC records, which are all ignored, so a parent domain's policy applies instead.":                                                                                                   bi("合并为一条 DMARC 记录。", "Merge them into a single DMARC record."),
	"The domain's own policy is reject or quarantine, but sp=none leaves its subdomains unprotected: mail spoofing any subdomain is not stopped.":                                                                                   bi("删除 sp=none（子域名将沿用 p），或把它设为 quarantine 或 reject。", "Remove sp=none (subdomains then follow p) or set it to quarantine or reject."),
	"Whether the domain exists could not be determined, and the parent record sets different policies for existing and non-existent subdomains; it is treated as existing (sp or p), so the policy that really applies may differ.": bi("稍后重新检查；如果反复出现，请检查该域名的 DNS 服务器。", "Scan again later; if it keeps happening, check the domain's DNS servers."),
	"A failure-report address (ruf) is malformed.":                                                                                                         bi("改正 ruf 地址（mailto: 加邮箱地址），或删除 ruf。", "Correct the ruf address (mailto: and a mailbox) or remove ruf."),
	"A nearer parent domain has a DMARC record, but under RFC 9989 a record higher up takes effect.":                                                       bi("检查各级 _dmarc 记录，删除不需要的记录，或在需要的记录上设置 psd 标签。", "Review the _dmarc records at each level: remove the ones you do not need, or set the psd tag where it belongs."),
	"A tag appears twice; strict receivers may ignore the whole record.":                                                                                   bi("删除重复的标签。", "Delete the repeated tag."),
	"Part of the record is malformed and is ignored.":                                                                                                      bi("检查分号和等号：每个标签写成 “名称=值”，用分号分隔。", "Check the semicolons and equals signs: each tag is name=value, separated by semicolons."),
	"The adkim value is invalid; receivers use relaxed alignment or ignore the record.":                                                                    bi("把 adkim 设为 r 或 s，或删除它（默认 r）。", "Set adkim to r or s, or remove it (the default is r)."),
	"The aspf value is invalid; receivers use relaxed alignment or ignore the record.":                                                                     bi("把 aspf 设为 r 或 s，或删除它（默认 r）。", "Set aspf to r or s, or remove it (the default is r)."),
	"The fo value is invalid and is treated as the default 0.":                                                                                             bi("把 fo 设为 0、1、d、s 的组合，或删除它。", "Set fo to a combination of 0, 1, d and s, or remove it."),
	"The psd value is invalid and is treated as the default u.":                                                                                            bi("把 psd 设为 y、n 或 u，或删除它。", "Set psd to y, n or u, or remove it."),
	"The record has the pct tag, removed by RFC 9989; receivers that follow the old specification may apply the policy to only part of the mail.":          bi("删除 pct 标签；需要分阶段时改用 t=y。", "Remove the pct tag; use t=y for a staged roll-out instead."),
	"The t value is invalid and is treated as the default n.":                                                                                              bi("把 t 设为 y 或 n，或删除它。", "Set t to y or n, or remove it."),
	"A tag name is written in another case (such as P=reject): DMARC tag names are case-sensitive, so receivers do not read it as that tag and ignore it.": bi("把标签名改成小写（p=、sp=、adkim= 等）。", "Write the tag names in lower case (p=, sp=, adkim= and so on)."),
	"The domain's DNSSEC signatures do not validate: receivers that validate (most large mailbox providers do) see none of its records.":                   bi("检查 DNS 服务商的 DNSSEC 设置：签名是否过期、密钥轮换后上级域名中的 DS 记录是否已更新；无法及时修复时，先从上级域名删除 DS 记录（关闭 DNSSEC），再重新签名。", "Check the DNSSEC set-up at your DNS provider: expired signatures, or a DS record at the parent that no longer matches the keys after a rollover. If it cannot be fixed quickly, remove the DS record at the parent (turning DNSSEC off) before re-signing."),
	"The DNSSEC signatures of a name this check depends on do not validate: receivers that validate see none of its records.":                              bi("找出记录指向的那个名称（include 目标、收件服务器、策略主机）所属的域名，请它的管理者修复 DNSSEC，或改为指向其他名称。", "Find the domain of the name your records point to (an include target, a mail server, the policy host) and have its operator fix DNSSEC, or point to another name."),
	"The domain's name servers do not answer (they refuse, stay silent or answer too late), so receivers cannot read these records either.":                bi("核对上级域名中登记的 NS 记录与 DNS 服务商实际提供服务的服务器是否一致，并确认每台服务器都对该区域作权威应答（不拒绝、不超时）。", "Check that the NS records at the parent match the servers your DNS provider really runs, and that each of them answers authoritatively for the zone (no refusal, no time-out)."),
	"The name servers of a name this check depends on do not answer (they refuse, stay silent or answer too late), so receivers cannot read it either.":    bi("记录指向的名称所属的域名服务器不可用：联系它的管理者，或改为指向可用的名称。", "The name servers of a name your records point to are not usable: contact its operator, or point to a name that works."),
	"The domain's name servers answered too slowly for this scan; receivers with shorter time-outs may see nothing. Scan again.":                           bi("过一会儿重新扫描：解析器通常已缓存了这些应答。如果每次都很慢，请检查域名服务器的响应时间（例如用 dig 直接查询每台 NS），并考虑换用响应更快或分布更广的 DNS 服务商。", "Scan again in a moment: the resolver usually has the answers cached by then. If it is slow every time, check how fast each of the domain's name servers answers (dig each NS directly), and consider a faster or better-distributed DNS provider."),
	"An alias (CNAME) chain of the domain loops or is too long: resolvers give up on it, so receivers cannot read these records either.":                   bi("让 CNAME 直接指向最终名称：去掉循环，并把链缩短到一两跳。", "Point the CNAME straight at the final name: remove the loop and keep the chain to one or two hops."),
	"An alias (CNAME) chain of a name this check depends on loops or is too long: resolvers give up on it.":                                                bi("改为指向不经过长别名链的名称，或请它的管理者缩短别名链。", "Point to a name without the long alias chain, or ask its operator to shorten it."),
	"The version tag is written as upper-case V=, which some receivers do not recognise.":                                                                  bi("把记录开头写成小写的 v=DMARC1。", "Start the record with a lower-case v=DMARC1."),
	"The DMARC policy is reject: mail that fails authentication is refused.":                                                                               bi("无需处理。", "Nothing to fix."),
	"The DMARC policy is quarantine: mail that fails authentication is quarantined, usually into the spam folder.":                                         bi("可以考虑在确认没有误伤后改为 p=reject。", "Consider p=reject once you are sure no legitimate mail is caught."),

	// DKIM.
	"A tag appears twice, which makes the whole record invalid.":                                                       bi("删除重复的标签。", "Delete the repeated tag."),
	"No DKIM key record exists for this selector, so signatures that use it cannot be verified.":                       bi("检查选择器拼写；按邮件服务商的说明在 <选择器>._domainkey.<域名> 发布公钥。", "Check the selector's spelling, and publish the key at <selector>._domainkey.<domain> as your mail provider describes."),
	"The Ed25519 public key is not 32 raw bytes, so verifiers cannot use it.":                                          bi("重新导出公钥：p= 应是 32 字节原始公钥的 Base64。", "Export the key again: p= must be the Base64 of the 32-byte raw public key."),
	"The RSA key is shorter than 1024 bits; verifiers do not accept its signatures.":                                   bi("生成 2048 位的新密钥，用新选择器发布后切换签名。", "Generate a 2048-bit key, publish it under a new selector and switch signing to it."),
	"The TXT record at the selector is not a DKIM key record.":                                                         bi("把该名称下的记录替换为以 v=DKIM1 开头的公钥记录。", "Replace the record at that name with a key record starting with v=DKIM1."),
	"The h= tag does not allow SHA-256, and SHA-1 signatures are no longer accepted.":                                  bi("删除 h= 标签，或把它设为 sha256。", "Remove the h= tag or set it to sha256."),
	"The key type k= is neither rsa nor ed25519, so verifiers cannot use it.":                                          bi("改用 RSA 或 Ed25519 密钥，并把 k= 设为对应值。", "Use an RSA or Ed25519 key and set k= accordingly."),
	"The public key cannot be decoded as an RSA key.":                                                                  bi("从签名系统重新复制公钥，注意不要截断，也不要带上 PEM 头尾行。", "Copy the public key again from the signing system, whole, without the PEM header and footer lines."),
	"The public key is not valid Base64.":                                                                              bi("重新复制公钥，删除多余的空格、引号或换行。", "Copy the key again and remove stray spaces, quotes or line breaks."),
	"The record lacks the required public-key tag p=.":                                                                 bi("加上 p= 标签和公钥。", "Add the p= tag with the public key."),
	"The record's version tag is not DKIM1, so verifiers ignore it.":                                                   bi("把版本写成 v=DKIM1，或删除 v= 标签。", "Write the version as v=DKIM1, or remove the v= tag."),
	"The s= tag does not allow this key to be used for email.":                                                         bi("删除 s= 标签，或把它设为 email 或 *。", "Remove the s= tag or set it to email or *."),
	"The selector is an alias (CNAME) whose target does not exist, so no key can be found.":                            bi("修正 CNAME 的目标，或按服务商的说明重新设置选择器。", "Fix the CNAME's target, or set up the selector again as your provider describes."),
	"The version tag v= is not the first tag, so verifiers ignore the record.":                                         bi("把 v=DKIM1 移到记录开头。", "Move v=DKIM1 to the start of the record."),
	"The selector's key has been revoked (empty p=), so signatures that use it fail.":                                  bi("如果仍在用该选择器签名，请改用有有效密钥的选择器；否则无需处理。", "If mail is still signed with this selector, switch signing to one with a valid key; otherwise nothing to fix."),
	"The RSA key is shorter than 2048 bits, below the length RFC 8301 recommends for signers, and is considered weak.": bi("生成 2048 位的新密钥，用新选择器发布后切换签名。", "Generate a 2048-bit key, publish it under a new selector and switch signing to it."),
	"The selector has N TXT records; verifiers may pick any of them, so results are unpredictable.":                    bi("在该选择器下只保留一条记录。", "Keep exactly one record at the selector."),
	"The RSA key is in PKCS#1 form instead of the usual SubjectPublicKeyInfo; some verifiers cannot read it.":          bi("以 SubjectPublicKeyInfo（以 MIIB 开头的 Base64）格式重新导出公钥。", "Export the key again in SubjectPublicKeyInfo form (Base64 starting with MIIB)."),
	"The RSA key is longer than 4096 bits, which some verifiers may not support.":                                      bi("改用 2048 位密钥。", "Use a 2048-bit key instead."),
	"The key is in test mode (t=y): verifiers treat signed mail as if it were unsigned.":                               bi("测试完成后删除 t=y。", "Remove t=y once testing is over."),
	"A usable DKIM public key was found.":                                                                              bi("无需处理。定期（例如每年）轮换密钥是好习惯。", "Nothing to fix. Rotating keys now and then (say yearly) is good practice."),
	"Not evaluated: no DKIM selector was supplied.":                                                                    bi("填写选择器后重新检查：它是已发邮件 DKIM-Signature 头中 s= 的值。", "Scan again with a selector: the s= value of a sent message's DKIM-Signature header."),

	// MTA-STS.
	"Mail servers not covered by the policy's mx patterns: N; in enforce mode, compliant senders will not deliver to them.":                                                         bi("在策略文件中为每台 MX 主机加上 mx 行，更新记录中的 id。", "Add an mx line for each MX host to the policy file and change the id in the record."),
	"The _mta-sts record is invalid or not unique, so senders treat the domain as having no MTA-STS.":                                                                               bi("只保留一条 “v=STSv1; id=…” 记录。", "Keep exactly one \"v=STSv1; id=…\" record."),
	"MTA-STS is announced, but the policy file cannot be fetched over HTTPS, so senders act as if there were no policy.":                                                            bi("确认 mta-sts.<域名> 有地址、证书有效，并在 /.well-known/mta-sts.txt 提供策略文件，不要重定向。", "Make sure mta-sts.<domain> resolves, has a valid certificate and serves /.well-known/mta-sts.txt without a redirect."),
	"The policy file was fetched but is not a valid MTA-STS policy, so senders ignore it.":                                                                                          bi("按 RFC 8461 的格式改写策略文件：version、mode、mx、max_age 各占一行。", "Rewrite the policy as RFC 8461 describes: version, mode, mx and max_age lines."),
	"MTA-STS is not published, so senders cannot know that delivery to the domain must be encrypted.":                                                                               bi("发布 _mta-sts 记录和策略文件；可以先用 mode: testing，确认无误后改为 enforce。", "Publish the _mta-sts record and a policy file; start with mode: testing, then switch to enforce."),
	"The MTA-STS policy mode is none: the policy is withdrawn and protects nothing.":                                                                                                bi("如果不是有意撤销，把 mode 改为 testing 或 enforce 并更新 id。", "Unless you meant to withdraw it, set mode to testing or enforce and change the id."),
	"Could not be determined: the policy host's DNS lookup or the HTTPS fetch timed out or gave no conclusive answer.":                                                              bi("稍后重新检查；如果反复出现，请检查 mta-sts.<域名> 的 DNS 和 Web 服务器。", "Scan again later; if it keeps happening, check the DNS and web server of mta-sts.<domain>."),
	"The MX lookup gave no conclusive answer, so whether the policy covers every mail server could not be checked.":                                                                 bi("稍后重新检查；如果反复出现，请检查该域名的 DNS 服务器。", "Scan again later; if it keeps happening, check the domain's DNS servers."),
	"MTA-STS is in testing mode: failures are only reported and mail is still delivered.":                                                                                           bi("用 TLS-RPT 报告确认没有投递失败后，改为 mode: enforce 并更新 id。", "Once TLS-RPT reports show no failures, switch to mode: enforce and change the id."),
	"Mail servers not covered by the policy's mx patterns: N; in testing mode this only produces failure reports, but in enforce mode compliant senders would not deliver to them.": bi("在策略文件中为每台 MX 主机加上 mx 行，再考虑改为 enforce。", "Add an mx line for each MX host to the policy file before moving to enforce."),
	"The _mta-sts record repeats a field.":                                        bi("删除重复的字段。", "Delete the repeated field."),
	"The policy file is not served as text/plain, which some senders reject.":     bi("让 Web 服务器以 Content-Type: text/plain 提供策略文件。", "Serve the policy file with Content-Type: text/plain."),
	"The policy file repeats a field; only the first one counts.":                 bi("删除重复的字段（mx 行可以有多条）。", "Delete the repeated field (mx lines may repeat)."),
	"max_age is 0, so senders do not cache the policy and protection is limited.": bi("把 max_age 设为至少一周（604800 秒）。", "Set max_age to at least a week (604800 seconds)."),
	"MTA-STS is in enforce mode with a valid policy.":                             bi("无需处理。修改 MX 时记得同时更新策略文件和 id。", "Nothing to fix. When you change MX hosts, update the policy and its id too."),
	"The domain accepts no mail (null MX), so MTA-STS is not needed.":             bi("无需处理。", "Nothing to fix."),

	// TLS-RPT.
	"There is no TLS-RPT record, so no reports arrive when encrypted delivery fails.":                  bi("在 _smtp._tls.<域名> 发布 “v=TLSRPTv1; rua=mailto:…” 记录。", "Publish \"v=TLSRPTv1; rua=mailto:…\" at _smtp._tls.<domain>."),
	"The TLS-RPT record is invalid or has no usable report address, so senders send no reports.":       bi("改正记录：以 v=TLSRPTv1 开头，rua 列出 mailto: 或 https: 地址。", "Correct the record: start with v=TLSRPTv1 and list mailto: or https: addresses in rua."),
	"N TLS-RPT records were found; only one is allowed, so senders treat reporting as not configured.": bi("合并为一条记录。", "Merge them into one record."),
	"Some report addresses are invalid (only mailto: and https: work), so no reports reach them.":      bi("改正或删除无效的地址。", "Correct or remove the invalid addresses."),
	"The record has more than one rua field; some senders read only the first.":                        bi("把所有地址放进同一个 rua 字段，用逗号分隔。", "Put every address in one rua field, separated by commas."),
	"TLS reporting (TLS-RPT) is configured, so senders report failed encrypted deliveries.":            bi("无需处理。", "Nothing to fix."),
	"The domain accepts no mail (null MX), so TLS reporting is not needed.":                            bi("无需处理。", "Nothing to fix."),

	// PTR.
	"The sending IP has no reverse DNS (PTR) record; many receivers reject or down-rank its mail.":                               bi("请 IP 地址的提供方（主机商或网络运营商）设置 PTR 记录，指向发信服务器的主机名。", "Ask the address's provider (hosting provider or network operator) to set a PTR record naming the sending server's host name."),
	"The reverse DNS names do not resolve back to the IP, so forward confirmation fails.":                                        bi("为 PTR 中的主机名添加指回该 IP 的 A 或 AAAA 记录。", "Add an A or AAAA record for the PTR host name that points back to the IP."),
	"None of the reverse DNS names is a usable host name, so forward confirmation is impossible.":                                bi("请地址提供方把 PTR 改为有效的主机名，例如 mail.example.com。", "Ask the address's provider to set the PTR to a valid host name such as mail.example.com."),
	"Some forward lookups gave no conclusive answer, so the reverse DNS could not be confirmed.":                                 bi("稍后重新检查；如果反复出现，请检查 PTR 主机名所在区域的 DNS 服务器。", "Scan again later; if it keeps happening, check the DNS servers of the PTR host name's zone."),
	"The reverse DNS name is localhost, which is not a usable sender host name.":                                                 bi("请地址提供方把 PTR 改为发信服务器的真实主机名。", "Ask the address's provider to set the PTR to the sending server's real host name."),
	"A reverse DNS name is not a valid host name.":                                                                               bi("请地址提供方改用只含字母、数字和连字符的主机名。", "Ask the address's provider for a host name of letters, digits and hyphens only."),
	"The IP has more than 8 reverse DNS names; only 8 were looked up forward.":                                                   bi("一个发信 IP 通常只需要一个 PTR 名称。", "One PTR name per sending IP is usually enough."),
	"The reverse DNS name looks generic (it embeds the IP's digits); some receivers treat such names as residential or dynamic.": bi("请地址提供方设置一个像 mail.example.com 这样的专用名称。", "Ask the address's provider for a dedicated name such as mail.example.com."),
	"The sending IP has a reverse DNS name that resolves back to the same IP (forward-confirmed).":                               bi("无需处理。", "Nothing to fix."),
	"Not evaluated: no sending IP was supplied.":                                                                                 bi("填写实际发信使用的公网 IP 后重新检查。", "Scan again with the public IP address your mail leaves from."),

	// CAA.
	"A CAA property marked critical has an unknown tag, so every certificate authority must refuse to issue.":                                           bi("删除该属性的 critical 标志（128），或改正标签拼写。", "Remove the critical flag (128) from that property, or correct its tag."),
	"The CAA records allow no certificate authority to issue certificates for the domain.":                                                              bi("如果需要证书，用 issue 属性列出所用的证书颁发机构。", "If you need certificates, name your certificate authority in an issue property."),
	"The CAA records that apply to the MTA-STS policy host allow no certificate authority to issue, so that host cannot obtain or renew a certificate.": bi("允许 mta-sts.<域名> 所用的证书颁发机构签发证书，例如在该名称上单独发布 CAA。", "Allow the certificate authority of mta-sts.<domain>, for instance with its own CAA records at that name."),
	"The CAA lookup for the MTA-STS policy host gave no conclusive answer, so certificate authorities may refuse to issue for it.":                      bi("稍后重新检查；如果反复出现，请检查该名称的 DNS 服务器。", "Scan again later; if it keeps happening, check the DNS servers of that name."),
	"Some CAA properties have an invalid tag and are ignored.":                                                                                          bi("改正或删除这些属性。", "Correct or remove those properties."),
	"Some CAA properties set reserved flag bits.":                                                                                                       bi("把标志改为 0（或表示 critical 的 128）。", "Set the flags to 0 (or 128 for critical)."),
	"Some issue properties are malformed, so they authorize no certificate authority.":                                                                  bi("按 “0 issue \"ca.example\"” 的格式改写。", "Rewrite them as 0 issue \"ca.example\"."),
	"Some issuemail properties are malformed.":                                                                                                          bi("按 “0 issuemail \"ca.example\"” 的格式改写。", "Rewrite them as 0 issuemail \"ca.example\"."),
	"Some issuer names end with a dot, which the CAA grammar does not allow; certificate authorities handle this differently.":                          bi("删除颁发机构名称末尾的点。", "Remove the trailing dot from the issuer names."),
	"Some issuewild properties are malformed, so they authorize no certificate authority.":                                                              bi("按 “0 issuewild \"ca.example\"” 的格式改写。", "Rewrite them as 0 issuewild \"ca.example\"."),
	"The iodef reporting address is invalid.":                                                                                                           bi("改为 mailto: 或 https: 地址。", "Use a mailto: or https: address."),
	"CAA records limit which certificate authorities may issue certificates for the domain.":                                                            bi("无需处理。更换证书颁发机构前先更新 CAA。", "Nothing to fix. Update CAA before you change certificate authority."),
	"There are no CAA records: any publicly trusted certificate authority may issue certificates for the domain.":                                       bi("可选：发布 issue 属性，只允许你使用的证书颁发机构。", "Optional: publish issue properties naming only the certificate authorities you use."),
	"The CAA records have no issue or issuewild property, so they do not restrict issuance.":                                                            bi("加上 issue 属性，列出你使用的证书颁发机构。", "Add issue properties naming the certificate authorities you use."),
	"The CAA records restrict only wildcard certificates (issuewild); any certificate authority may still issue ordinary certificates.":                 bi("再加上 issue 属性，限制普通证书。", "Add issue properties to restrict ordinary certificates too."),
}
