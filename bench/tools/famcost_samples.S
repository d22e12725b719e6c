/* The instruction samples of famcost: typical instructions of each family
   phybin translates, in Intel syntax, assembled by the host `as`.  Each
   SAMPLE line names its family; the macro puts the instruction's bytes in
   famcost_code and a row {family, text, first byte, end, jcc} in
   famcost_table, between famcost_samples and famcost_samples_end
   (famcost.cpp reads it).
   PAIR rows measure two instructions together; BRANCH rows name the jcc
   that reads the instruction's flags.  Register operands mostly:
   memory operands add the address arithmetic and load of the addressing
   mode, the same for every family. */
  .intel_syntax noprefix

  .section .data.rel.ro.famcost_table, "aw"
  .balign 8
  .globl famcost_samples
famcost_samples:

/* FAMCOST_ROW: the table row of the code between local labels 1 and 2;
   jcc, when given, is the label of a jcc whose condition reads the flags. */
.macro FAMCOST_ROW family:req, text:req, jcc=0
  .pushsection .rodata.famcost_text, "aMS", @progbits, 1
.Lfc_family\@: .asciz "\family"
.Lfc_text\@: .asciz "\text"
  .popsection
  .quad .Lfc_family\@, .Lfc_text\@, 1b, 2b, \jcc
.endm

/* SAMPLE family, instruction */
.macro SAMPLE family:req, insn:vararg
  .pushsection .rodata.famcost_code, "a"
1:
  \insn
2:
  .popsection
  FAMCOST_ROW \family, "\insn"
.endm

/* PAIR family, "first", "second": two instructions measured together. */
.macro PAIR family:req, first:req, second:req
  .pushsection .rodata.famcost_code, "a"
1:
  \first
  \second
2:
  .popsection
  FAMCOST_ROW \family, "\first; \second"
.endm

/* BRANCH family, "instruction", cc: the instruction with its flags read by
   j<cc> in place of jz (the ZF-live figure).  The jcc is assembled apart,
   only for its condition: the meter places it as it places jz. */
.macro BRANCH family:req, insn:req, cc:req
  .pushsection .rodata.famcost_code, "a"
1:
  \insn
2:
  .popsection
  .pushsection .rodata.famcost_jcc, "a"
3:
  j\cc 3b
  .popsection
  FAMCOST_ROW \family, "\insn; j\cc", 3b
.endm

SAMPLE alu, add rax, rbx
SAMPLE alu, add eax, ebx
SAMPLE alu, add rax, 8
SAMPLE alu, sub rax, rbx
SAMPLE alu, sub ecx, 1
SAMPLE alu, adc rax, rbx
SAMPLE alu, sbb eax, eax
SAMPLE alu, and eax, ebx
SAMPLE alu, or rax, rbx
SAMPLE alu, xor eax, eax
SAMPLE alu, xor rax, rbx
SAMPLE alu, cmp rax, rbx
SAMPLE alu, cmp eax, 10
SAMPLE alu, test eax, eax
SAMPLE alu, test al, 1
SAMPLE alu, inc rax
SAMPLE alu, dec ecx
SAMPLE alu, neg rax
SAMPLE alu, not rax
SAMPLE alu, add al, bl
SAMPLE alu, add ax, bx
SAMPLE alu, mov rax, rbx
SAMPLE alu, mov eax, 1
SAMPLE alu, movabs rax, 0x123456789abcdef0
SAMPLE alu, movzx eax, bl
SAMPLE alu, movsx rax, ebx
SAMPLE alu, movsxd rax, dword ptr [rbx]
SAMPLE alu, movsx eax, byte ptr [rbx+1]
SAMPLE alu, cdqe
SAMPLE alu, cqo
SAMPLE alu, lea rax, [rbx+rcx*4+8]
SAMPLE alu, mov rax, [rbx+8]
SAMPLE alu, mov [rbx+8], rax
SAMPLE alu, add rax, [rbx]
SAMPLE alu, add [rbx], eax
SAMPLE alu, xchg rax, rbx
SAMPLE cond, cmovz rax, rbx
SAMPLE cond, cmovl eax, ebx
SAMPLE cond, cmova rax, rbx
SAMPLE cond, setz al
SAMPLE cond, setl al
SAMPLE cond, seta al
SAMPLE cond, setp al
/* The way compilers use them: right after the compare that sets the flags
   (the row's cost is the pair's). */
PAIR cond, "cmp rax, rbx", "cmovl rax, rcx"
PAIR cond, "test eax, eax", "cmovz eax, ebx"
PAIR cond, "cmp eax, ebx", "setl al"
PAIR cond, "cmp rax, rbx", "seta al"
PAIR cond, "cmp rax, rbx", "sbb eax, eax"
SAMPLE shift, shl rax, 3
SAMPLE shift, shr eax, 1
SAMPLE shift, sar rax, 63
SAMPLE shift, shl rax, cl
SAMPLE shift, shr eax, cl
SAMPLE shift, sar rax, cl
SAMPLE shift, rol rax, 13
SAMPLE shift, ror eax, cl
SAMPLE shift, rcl rax, 1
SAMPLE shift, rcr eax, 1
SAMPLE shift, shld rax, rbx, 7
SAMPLE shift, shrd rax, rbx, cl
SAMPLE muldiv, imul rax, rbx
SAMPLE muldiv, imul eax, ebx, 12
SAMPLE muldiv, imul ecx
SAMPLE muldiv, mul rbx
SAMPLE muldiv, imul rbx
SAMPLE muldiv, div rbx
SAMPLE muldiv, idiv ecx
SAMPLE muldiv, div cl
SAMPLE bits, bsf rax, rbx
SAMPLE bits, bsr eax, ebx
SAMPLE bits, bt rax, rbx
SAMPLE bits, bts eax, 5
SAMPLE bits, btr rax, rbx
SAMPLE bits, btc eax, ebx
SAMPLE bits, popcnt rax, rbx
SAMPLE bits, lzcnt eax, ebx
SAMPLE bits, tzcnt rax, rbx
SAMPLE bits, bswap rax
SAMPLE bits, bswap eax
SAMPLE string, movsb
SAMPLE string, movsq
SAMPLE string, stosq
SAMPLE string, rep movsb
SAMPLE string, rep movsq
SAMPLE string, rep stosb
SAMPLE string, rep stosq
SAMPLE string, lodsb
SAMPLE string, scasb
SAMPLE string, cmpsb
SAMPLE string, repne scasb
SAMPLE string, repe cmpsb
SAMPLE stack, push rax
SAMPLE stack, pop rbx
SAMPLE stack, push 1
SAMPLE stack, push qword ptr [rbx]
SAMPLE stack, pushfq
SAMPLE stack, popfq
SAMPLE stack, leave
SAMPLE sse_int, movdqa xmm0, xmm1
SAMPLE sse_int, movdqu xmm0, [rax]
SAMPLE sse_int, movdqa [rax], xmm0
SAMPLE sse_int, movq xmm0, rax
SAMPLE sse_int, movd eax, xmm0
SAMPLE sse_int, paddd xmm0, xmm1
SAMPLE sse_int, paddq xmm0, xmm1
SAMPLE sse_int, psubb xmm0, xmm1
SAMPLE sse_int, paddusb xmm0, xmm1
SAMPLE sse_int, pmullw xmm0, xmm1
SAMPLE sse_int, pmulhw xmm0, xmm1
SAMPLE sse_int, pmuludq xmm0, xmm1
SAMPLE sse_int, pmaddwd xmm0, xmm1
SAMPLE sse_int, pcmpeqb xmm0, xmm1
SAMPLE sse_int, pcmpgtd xmm0, xmm1
SAMPLE sse_int, pand xmm0, xmm1
SAMPLE sse_int, pandn xmm0, xmm1
SAMPLE sse_int, por xmm0, xmm1
SAMPLE sse_int, pxor xmm0, xmm0
SAMPLE sse_int, pxor xmm0, xmm1
SAMPLE sse_int, pmovmskb eax, xmm0
SAMPLE sse_int, pmaxub xmm0, xmm1
SAMPLE sse_int, pminsw xmm0, xmm1
SAMPLE sse_int, pavgb xmm0, xmm1
SAMPLE sse_int, psadbw xmm0, xmm1
SAMPLE sse_int, pslld xmm0, 3
SAMPLE sse_int, psrlq xmm0, 7
SAMPLE sse_int, psraw xmm0, 2
SAMPLE sse_int, pslld xmm0, xmm1
SAMPLE sse_int, psrad xmm0, xmm1
SAMPLE sse_int, pslldq xmm0, 4
SAMPLE sse_int, psrldq xmm0, 8
SAMPLE sse_fp, movaps xmm0, xmm1
SAMPLE sse_fp, movups xmm0, [rax]
SAMPLE sse_fp, movss xmm0, [rax]
SAMPLE sse_fp, movsd xmm0, xmm1
SAMPLE sse_fp, movsd [rax], xmm0
SAMPLE sse_fp, movaps xmm0, [rax]
SAMPLE sse_fp, movaps [rax], xmm0
SAMPLE sse_fp, addps xmm0, xmm1
SAMPLE sse_fp, addpd xmm0, xmm1
SAMPLE sse_fp, addss xmm0, xmm1
SAMPLE sse_fp, addsd xmm0, xmm1
SAMPLE sse_fp, subsd xmm0, xmm1
SAMPLE sse_fp, mulps xmm0, xmm1
SAMPLE sse_fp, mulsd xmm0, xmm1
SAMPLE sse_fp, divsd xmm0, xmm1
SAMPLE sse_fp, divps xmm0, xmm1
SAMPLE sse_fp, sqrtsd xmm0, xmm1
SAMPLE sse_fp, sqrtps xmm0, xmm1
SAMPLE sse_fp, maxsd xmm0, xmm1
SAMPLE sse_fp, minps xmm0, xmm1
SAMPLE sse_fp, andps xmm0, xmm1
SAMPLE sse_fp, andnpd xmm0, xmm1
SAMPLE sse_fp, xorps xmm0, xmm0
SAMPLE sse_fp, xorpd xmm0, xmm1
SAMPLE sse_fp, cmpltsd xmm0, xmm1
SAMPLE sse_fp, cmpeqps xmm0, xmm1
SAMPLE sse_fp, ucomisd xmm0, xmm1
SAMPLE sse_fp, comiss xmm0, xmm1
SAMPLE sse_fp, rcpps xmm0, xmm1
SAMPLE sse_fp, rsqrtss xmm0, xmm1
SAMPLE sse_fp, movmskpd eax, xmm0
SAMPLE sse_shuffle, pshufd xmm0, xmm1, 0x1b
SAMPLE sse_shuffle, pshufd xmm0, xmm1, 0
SAMPLE sse_shuffle, pshuflw xmm0, xmm1, 0x1b
SAMPLE sse_shuffle, shufps xmm0, xmm1, 0x44
SAMPLE sse_shuffle, shufps xmm0, xmm1, 0x1b
SAMPLE sse_shuffle, shufpd xmm0, xmm1, 1
SAMPLE sse_shuffle, unpcklps xmm0, xmm1
SAMPLE sse_shuffle, unpckhpd xmm0, xmm1
SAMPLE sse_shuffle, punpcklbw xmm0, xmm1
SAMPLE sse_shuffle, punpckhdq xmm0, xmm1
SAMPLE sse_shuffle, punpcklqdq xmm0, xmm1
SAMPLE sse_shuffle, packsswb xmm0, xmm1
SAMPLE sse_shuffle, packuswb xmm0, xmm1
SAMPLE sse_shuffle, packssdw xmm0, xmm1
SAMPLE sse_shuffle, movhlps xmm0, xmm1
SAMPLE sse_shuffle, movlhps xmm0, xmm1
SAMPLE sse_shuffle, pinsrw xmm0, eax, 3
SAMPLE sse_shuffle, pextrw eax, xmm0, 5
SAMPLE sse_convert, cvtsi2sd xmm0, rax
SAMPLE sse_convert, cvtsi2sd xmm0, eax
SAMPLE sse_convert, cvtsi2ss xmm0, eax
SAMPLE sse_convert, cvttsd2si rax, xmm0
SAMPLE sse_convert, cvttsd2si eax, xmm0
SAMPLE sse_convert, cvtsd2si rax, xmm0
SAMPLE sse_convert, cvttss2si eax, xmm0
SAMPLE sse_convert, cvtss2sd xmm0, xmm1
SAMPLE sse_convert, cvtsd2ss xmm0, xmm1
SAMPLE sse_convert, cvtdq2ps xmm0, xmm1
SAMPLE sse_convert, cvttps2dq xmm0, xmm1
SAMPLE sse_convert, cvtps2dq xmm0, xmm1
SAMPLE sse_convert, cvtdq2pd xmm0, xmm1
SAMPLE sse_convert, cvtpd2ps xmm0, xmm1
SAMPLE sse_convert, cvtps2pd xmm0, xmm1
SAMPLE sse_convert, cvttpd2dq xmm0, xmm1
SAMPLE sse3, addsubps xmm0, xmm1
SAMPLE sse3, haddps xmm0, xmm1
SAMPLE sse3, haddpd xmm0, xmm1
SAMPLE sse3, movddup xmm0, xmm1
SAMPLE sse3, movshdup xmm0, xmm1
SAMPLE sse3, lddqu xmm0, [rax]
SAMPLE ssse3, pshufb xmm0, xmm1
SAMPLE ssse3, palignr xmm0, xmm1, 4
SAMPLE ssse3, pabsd xmm0, xmm1
SAMPLE ssse3, phaddd xmm0, xmm1
SAMPLE ssse3, pmaddubsw xmm0, xmm1
SAMPLE ssse3, pmulhrsw xmm0, xmm1
SAMPLE ssse3, psignb xmm0, xmm1
SAMPLE sse41, pmulld xmm0, xmm1
SAMPLE sse41, pminsd xmm0, xmm1
SAMPLE sse41, pmaxud xmm0, xmm1
SAMPLE sse41, pmovzxbw xmm0, xmm1
SAMPLE sse41, pmovsxdq xmm0, xmm1
SAMPLE sse41, pblendw xmm0, xmm1, 0x55
SAMPLE sse41, blendvps xmm0, xmm1, xmm0
SAMPLE sse41, pblendvb xmm1, xmm2, xmm0
SAMPLE sse41, pinsrd xmm0, eax, 2
SAMPLE sse41, pextrd eax, xmm0, 1
SAMPLE sse41, pextrb eax, xmm0, 9
SAMPLE sse41, insertps xmm0, xmm1, 0x10
SAMPLE sse41, ptest xmm0, xmm1
SAMPLE sse41, pcmpeqq xmm0, xmm1
SAMPLE sse41, packusdw xmm0, xmm1
SAMPLE sse41, roundsd xmm0, xmm1, 9
SAMPLE sse41, roundps xmm0, xmm1, 0
SAMPLE sse41, dpps xmm0, xmm1, 0xff
SAMPLE sse41, phminposuw xmm0, xmm1
SAMPLE sse42, pcmpgtq xmm0, xmm1
SAMPLE pcmpstr, pcmpistri xmm0, xmm1, 0x0c
SAMPLE pcmpstr, pcmpistrm xmm0, xmm1, 0x40
SAMPLE pcmpstr, pcmpestri xmm0, xmm1, 0x18
SAMPLE crc32, crc32 eax, bl
SAMPLE crc32, crc32 rax, rbx
SAMPLE aes, aesenc xmm0, xmm1
SAMPLE aes, aesenclast xmm0, xmm1
SAMPLE aes, aesdec xmm0, xmm1
SAMPLE aes, aesimc xmm0, xmm1
SAMPLE aes, aeskeygenassist xmm0, xmm1, 1
SAMPLE pclmul, pclmulqdq xmm0, xmm1, 0x00
SAMPLE pclmul, pclmulqdq xmm0, xmm1, 0x11
SAMPLE sha, sha1rnds4 xmm0, xmm1, 0
SAMPLE sha, sha1nexte xmm0, xmm1
SAMPLE sha, sha1msg1 xmm0, xmm1
SAMPLE sha, sha256rnds2 xmm1, xmm2, xmm0
SAMPLE sha, sha256msg1 xmm0, xmm1
SAMPLE sha, sha256msg2 xmm0, xmm1
SAMPLE bmi1, andn rax, rbx, rcx
SAMPLE bmi1, blsr rax, rbx
SAMPLE bmi1, blsi eax, ebx
SAMPLE bmi1, blsmsk rax, rbx
SAMPLE bmi1, bextr rax, rbx, rcx
SAMPLE bmi2, bzhi rax, rbx, rcx
SAMPLE bmi2, shlx rax, rbx, rcx
SAMPLE bmi2, sarx eax, ebx, ecx
SAMPLE bmi2, rorx rax, rbx, 13
SAMPLE bmi2, mulx rax, rcx, rbx
SAMPLE bmi2, pdep rax, rbx, rcx
SAMPLE bmi2, pext rax, rbx, rcx
SAMPLE adx, adcx rax, rbx
SAMPLE adx, adox rax, rbx
SAMPLE movbe, movbe rax, [rbx]
SAMPLE movbe, movbe [rbx], eax
SAMPLE mmx, movq mm0, mm1
SAMPLE mmx, movq mm0, [rax]
SAMPLE mmx, paddw mm0, mm1
SAMPLE mmx, pmullw mm0, mm1
SAMPLE mmx, pxor mm0, mm1
SAMPLE mmx, psllq mm0, 3
SAMPLE mmx, psrlw mm0, mm1
SAMPLE mmx, punpcklbw mm0, mm1
SAMPLE mmx, pshufw mm0, mm1, 0x1b
SAMPLE mmx, emms
SAMPLE x87, fld qword ptr [rax]
SAMPLE x87, fstp qword ptr [rax]
SAMPLE x87, fld st(1)
SAMPLE x87, faddp st(1), st
SAMPLE x87, fmul st, st(1)
SAMPLE x87, fdivp st(1), st
SAMPLE x87, fxch st(1)
SAMPLE x87, fild dword ptr [rax]
SAMPLE x87, fistp qword ptr [rax]
SAMPLE x87, fucomip st, st(1)
SAMPLE x87, fnstcw [rax]
SAMPLE x87, fldcw [rax]
SAMPLE x87_transcendental, fsin
SAMPLE x87_transcendental, fcos
SAMPLE x87_transcendental, fpatan
SAMPLE x87_transcendental, fyl2x
SAMPLE x87_transcendental, f2xm1
SAMPLE x87_transcendental, fsqrt
SAMPLE cmpxchg, cmpxchg [rbx], rcx
SAMPLE cmpxchg, lock cmpxchg [rbx], ecx
SAMPLE cmpxchg, lock xadd [rbx], rax
SAMPLE cmpxchg, xchg [rbx], rax
SAMPLE cmpxchg, lock add dword ptr [rbx], 1
SAMPLE cmpxchg, lock cmpxchg16b [rbx]
SAMPLE cmpxchg, cmpxchg8b [rbx]

  .globl famcost_samples_end
famcost_samples_end:
  .section .note.GNU-stack, "", @progbits
