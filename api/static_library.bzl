"""hlx_static_library: one .a holding a cc_library and all it depends on.

Bazel 4 has no cc_static_library; this walks the dep's CcInfo and merges
every static archive (or object files, if the toolchain gave objects) into
one archive with an ar MRI script. System libraries that enter through
linkopts (-ldnnl, ...) are not included: link them next to the archive.
"""

def _impl(ctx):
    out = ctx.actions.declare_file(ctx.attr.out)
    archives = []
    objects = []
    for li in ctx.attr.dep[CcInfo].linking_context.linker_inputs.to_list():
        for lib in li.libraries:
            a = lib.pic_static_library or lib.static_library
            if a:
                archives.append(a)
            else:
                objects.extend(lib.pic_objects or lib.objects or [])
    script = ["CREATE " + out.path]
    script += ["ADDLIB " + a.path for a in archives]
    script += ["ADDMOD " + o.path for o in objects]
    script += ["SAVE", "END"]
    mri = ctx.actions.declare_file(ctx.attr.out + ".mri")
    ctx.actions.write(mri, "\n".join(script) + "\n")
    ctx.actions.run_shell(
        inputs = archives + objects + [mri],
        outputs = [out],
        command = "ar -M < " + mri.path,
        mnemonic = "MergeArchives",
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

hlx_static_library = rule(
    implementation = _impl,
    attrs = {
        "dep": attr.label(providers = [CcInfo]),
        "out": attr.string(mandatory = True),
    },
)
