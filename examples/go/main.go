// podorder — what a Kubernetes operator (or a Kueue integration) embeds to
// number a job's pods the way railyard orders ranks: it reads the job's nodes
// as `kubectl get nodes -o json` prints them, with the fabric labels
// `railyard export --format k8s-labels` writes (NVIDIA topograph's keys,
// fabric.topograph.run/tier-N), asks railyard's C API (librailyard_c.so, via
// cgo) for the rank order, and prints which node each pod index runs on:
//
//	kubectl get nodes -l job=llm -o json > nodes.json
//	podorder -cluster h100-1024 -job tp=8,pp=4,dp=4 -nodes nodes.json
//
// Pod i (node rank i) gets ranks i*G .. i*G+G-1 (G GPUs per node) and the
// Megatron order string printed on the first line. Before ordering it checks
// that the labels agree with the cluster railyard was given: nodes railyard
// puts in one scalable unit must carry one tier-0 label, nodes of different
// units different ones (stale labels or a wrong -cluster would otherwise
// number the pods silently wrong). Exit status 2 with a message on stderr on
// any error. Only the Go standard library is used: it builds offline.
package main

/*
#cgo LDFLAGS: -lrailyard_c
#include <stdlib.h>
#include "railyard/c/railyard.h"
*/
import "C"

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"unsafe"
)

const (
	tier0Key    = "fabric.topograph.run/tier-0"
	hostnameKey = "kubernetes.io/hostname"
)

// The parts of `kubectl get nodes -o json` this program reads.
type nodeList struct {
	Items []struct {
		Metadata struct {
			Name   string            `json:"name"`
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	} `json:"items"`
}

type node struct {
	name  string
	tier0 string
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "podorder: "+format+"\n", args...)
	os.Exit(2)
}

func lastError() string { return C.GoString(C.railyard_last_error()) }

func readNodes(path string) []node {
	data, err := os.ReadFile(path)
	if err != nil {
		fail("-nodes=%s: %v", path, err)
	}
	var list nodeList
	if err := json.Unmarshal(data, &list); err != nil {
		fail("-nodes=%s: not kubectl's JSON node list: %v", path, err)
	}
	if len(list.Items) == 0 {
		fail("-nodes=%s: no nodes (items is empty)", path)
	}
	nodes := make([]node, 0, len(list.Items))
	for _, item := range list.Items {
		name := item.Metadata.Labels[hostnameKey]
		if name == "" {
			name = item.Metadata.Name
		}
		tier0, ok := item.Metadata.Labels[tier0Key]
		if !ok {
			fail("-nodes=%s: node %s has no %s label (label the nodes with `railyard export --format k8s-labels`)",
				path, name, tier0Key)
		}
		nodes = append(nodes, node{name, tier0})
	}
	return nodes
}

func main() {
	cluster := flag.String("cluster", "h100-1024", "cluster spec or preset")
	job := flag.String("job", "", "parallel plan, e.g. tp=8,pp=4,dp=4")
	nodesPath := flag.String("nodes", "", "the job's nodes, `kubectl get nodes -o json`")
	pattern := flag.String("node-pattern", "", "node names of the cluster (default node{host:04})")
	flag.Parse()
	if *job == "" || *nodesPath == "" {
		fail("-job and -nodes are required")
	}
	if C.railyard_c_api_version() != C.RAILYARD_C_API_VERSION {
		fail("librailyard_c.so implements C API %d, this program was built for %d",
			int(C.railyard_c_api_version()), int(C.RAILYARD_C_API_VERSION))
	}
	nodes := readNodes(*nodesPath)

	cSpec := C.CString(*cluster)
	defer C.free(unsafe.Pointer(cSpec))
	var cPattern *C.char
	if *pattern != "" {
		cPattern = C.CString(*pattern)
		defer C.free(unsafe.Pointer(cPattern))
	}
	var c *C.railyard_cluster
	if C.railyard_cluster_create(cSpec, cPattern, &c, nil, 0) != C.RAILYARD_OK {
		fail("-cluster: %s", lastError())
	}
	defer C.railyard_cluster_destroy(c)
	var info C.railyard_cluster_info
	C.railyard_cluster_get_info(c, &info)

	// Node names -> host ids, in the file's order (a comma-separated list is a
	// Slurm hostlist expression too).
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.name
	}
	cNames := C.CString(strings.Join(names, ","))
	defer C.free(unsafe.Pointer(cNames))
	ids := make([]C.int32_t, len(nodes))
	var count C.size_t
	if rc := C.railyard_cluster_parse_hosts(c, cNames, &ids[0], C.size_t(len(ids)), &count); rc != C.RAILYARD_OK {
		fail("-nodes: %s", lastError())
	}
	byHost := map[int32]node{}
	for i, id := range ids {
		byHost[int32(id)] = nodes[i]
	}

	// The labels must agree with railyard's scalable units.
	labelOfSU := map[int32]string{}
	suOfLabel := map[string]int32{}
	for i, id := range ids {
		su := int32(id) / int32(info.hosts_per_su)
		label := nodes[i].tier0
		if l, ok := labelOfSU[su]; ok && l != label {
			fail("-nodes: %s has %s=%s but shares scalable unit %d with a node labelled %s: stale labels or a wrong -cluster",
				nodes[i].name, tier0Key, label, su, l)
		}
		if s, ok := suOfLabel[label]; ok && s != su {
			fail("-nodes: %s=%s on nodes of scalable units %d and %d: stale labels or a wrong -cluster",
				tier0Key, label, s, su)
		}
		labelOfSU[su] = label
		suOfLabel[label] = su
	}

	cJob := C.CString(*job)
	defer C.free(unsafe.Pointer(cJob))
	var order *C.railyard_order
	if C.railyard_order_ranks(c, cJob, &ids[0], C.size_t(len(ids)), 0, &order) != C.RAILYARD_OK {
		fail("-job: %s", lastError())
	}
	defer C.railyard_order_destroy(order)
	var oi C.railyard_order_info
	C.railyard_order_get_info(order, &oi)
	podHosts := make([]C.int32_t, int(oi.nodes))
	if C.railyard_order_nodes(order, &podHosts[0], C.size_t(len(podHosts))) != C.RAILYARD_OK {
		fail("%s", lastError())
	}

	g := int64(oi.gpus_per_host)
	fmt.Printf("order %s world %d gpus_per_pod %d\n", C.GoString(&oi.order[0]), int64(oi.world), g)
	for i, h := range podHosts {
		n := byHost[int32(h)]
		fmt.Printf("pod %d node %s %s=%s ranks %d-%d\n", i, n.name, tier0Key, n.tier0,
			int64(i)*g, int64(i+1)*g-1)
	}
}
