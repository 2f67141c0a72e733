process GPUASM_SCAN {
    tag "$meta.id"
    label 'process_medium'

    // gpuasm is not in Bioconda yet (README.md: build from source); the
    // environment names the package it will have.
    conda "${moduleDir}/environment.yml"

    input:
    tuple val(meta), path(reads)
    path targets

    output:
    tuple val(meta), path("*.bam")              , emit: bam
    tuple val(meta), path("*.report.tsv")       , emit: report
    tuple val(meta), path("*_mqc.json")         , emit: multiqc
    tuple val(meta), path("*.stats.json")       , emit: stats
    tuple val(meta), path("*.clean*.fastq.gz")  , emit: clean
    tuple val("${task.process}"), val('gpuasm'), eval("gpuasm-scan --version | sed '1!d; s/^gpuasm-scan //'"), topic: versions, emit: versions_gpuasm

    when:
    task.ext.when == null || task.ext.when

    script:
    def args   = task.ext.args ?: ''
    def prefix = task.ext.prefix ?: "${meta.id}"
    def clean  = meta.single_end ? "--unmatched-reads ${prefix}.clean.fastq.gz" : "--unmatched-reads ${prefix}.clean_1.fastq.gz --unmatched-reads2 ${prefix}.clean_2.fastq.gz"
    """
    gpuasm-scan \\
        $args \\
        -@ ${task.cpus - 1} \\
        --sample ${prefix} \\
        --report ${prefix}.report.tsv \\
        --multiqc ${prefix}_mqc.json \\
        --stats ${prefix}.stats.json \\
        $clean \\
        -o ${prefix}.bam \\
        $reads \\
        $targets
    """

    stub:
    def prefix = task.ext.prefix ?: "${meta.id}"
    def clean  = meta.single_end ? "${prefix}.clean.fastq.gz" : "${prefix}.clean_1.fastq.gz ${prefix}.clean_2.fastq.gz"
    """
    touch ${prefix}.bam ${prefix}.report.tsv ${prefix}_mqc.json ${prefix}.stats.json
    for f in $clean; do echo -n | gzip > \$f; done
    """
}
