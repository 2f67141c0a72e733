process GPUASM_SCAN {
    tag "$meta.id"
    label 'process_medium'
    label 'process_gpu'

    // The images of the Bioconda recipe's two builds (packaging/bioconda:
    // build strings cpu_N and cudaXY_N; packaging/container/Dockerfile
    // builds the same images): the CUDA one where the task asks for a GPU
    // (task.accelerator, set by the process_gpu label's configuration).
    conda "${moduleDir}/environment.yml"
    container "${ task.accelerator ?
        ( workflow.containerEngine in ['singularity', 'apptainer'] && !task.ext.singularity_pull_docker_container ?
            'https://depot.galaxyproject.org/singularity/gpuasm:0.1.0--cuda126_0' :
            'quay.io/biocontainers/gpuasm:0.1.0--cuda126_0' ) :
        ( workflow.containerEngine in ['singularity', 'apptainer'] && !task.ext.singularity_pull_docker_container ?
            'https://depot.galaxyproject.org/singularity/gpuasm:0.1.0--cpu_0' :
            'quay.io/biocontainers/gpuasm:0.1.0--cpu_0' ) }"

    input:
    tuple val(meta), path(reads)
    tuple val(meta2), path(targets)
    tuple val(meta3), path(fasta)

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
    def args      = task.ext.args ?: ''
    def prefix    = task.ext.prefix ?: "${meta.id}"
    def clean     = meta.single_end ? "--unmatched-reads ${prefix}.clean.fastq.gz" : "--unmatched-reads ${prefix}.clean_1.fastq.gz --unmatched-reads2 ${prefix}.clean_2.fastq.gz"
    def reference = fasta ? "-T ${fasta}" : ''
    def device    = task.accelerator ? '--device cuda' : ''
    """
    gpuasm-scan \\
        $args \\
        -@ ${task.cpus - 1} \\
        $device \\
        $reference \\
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
    def clean2 = meta.single_end ? '' : "echo \"\" | gzip > ${prefix}.clean_2.fastq.gz"
    """
    touch ${prefix}.bam ${prefix}.report.tsv ${prefix}_mqc.json ${prefix}.stats.json
    echo "" | gzip > ${prefix}.clean${meta.single_end ? '' : '_1'}.fastq.gz
    $clean2
    """
}
