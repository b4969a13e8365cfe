// Times a Weka classifier per cross-validation fold inside one warm JVM: buildClassifier on the
// fold's training rows + distributionForInstance on each of its test rows, after `warmup` passes
// over all folds so the JIT has compiled the hot code (what an Experimenter or a 10-fold CV sees).
// Folds are Weka's own: randomize(new Random(seed)), stratify(folds), trainCV / testCV.
//
// Build: javac -cp /usr/share/java/weka.jar -d BUILD benchmarks/weka/WarmWeka.java
// Run:   java -cp /usr/share/java/weka.jar:BUILD WarmWeka data.arff MODEL warmup rounds [folds seed]
//        MODEL: nb (NaiveBayes), aode (AODE), mdl-aode (FilteredClassifier: supervised Discretize + AODE),
//               aodesr (AODEsr), waode (WAODE), hnb (HNB); each with Weka's default options
//        bn-k2, bn-hc, bn-tan (BayesNet, SimpleEstimator -A 0.5, score BAYES; K2 -P 2, HillClimber -P 2 -R, TAN)
// Output (stdout), one line each:
//   test FOLD ROW ROW ...        0-based rows of the file in the fold's test set
//   ms FOLD BUILD_MS PREDICT_MS  one line per fold per measured round
//   p FOLD P0 P1 ...             the class distribution of each test row (last round), in test order
import weka.classifiers.Classifier;
import weka.classifiers.bayes.AODE;
import weka.classifiers.bayes.BayesNet;
import weka.classifiers.bayes.AODEsr;
import weka.classifiers.bayes.HNB;
import weka.classifiers.bayes.NaiveBayes;
import weka.classifiers.bayes.WAODE;
import weka.classifiers.meta.FilteredClassifier;
import weka.core.Attribute;
import weka.core.Instances;
import weka.core.Utils;
import weka.filters.supervised.attribute.Discretize;
import java.io.BufferedReader;
import java.io.FileReader;
import java.util.Random;

public class WarmWeka {
    static final String LOCAL = "weka.classifiers.bayes.net.search.local.";

    static Classifier make(String model) throws Exception {
        if (model.equals("nb")) return new NaiveBayes();
        if (model.startsWith("bn-")) {
            String search = model.equals("bn-k2") ? "K2 -- -P 2 -S BAYES"
                : model.equals("bn-hc") ? "HillClimber -- -P 2 -R -S BAYES"
                : model.equals("bn-tan") ? "TAN -- -S BAYES" : null;
            if (search == null) throw new IllegalArgumentException("unknown model " + model + " (bn-k2, bn-hc, bn-tan)");
            BayesNet net = new BayesNet();
            net.setOptions(Utils.splitOptions(
                "-Q " + LOCAL + search + " -E weka.classifiers.bayes.net.estimate.SimpleEstimator -- -A 0.5"));
            return net;
        }
        if (model.equals("aode")) return new AODE();
        if (model.equals("aodesr")) return new AODEsr();
        if (model.equals("waode")) return new WAODE();
        if (model.equals("hnb")) return new HNB();
        if (model.equals("mdl-aode")) {
            FilteredClassifier filtered = new FilteredClassifier();
            filtered.setFilter(new Discretize());
            filtered.setClassifier(new AODE());
            return filtered;
        }
        throw new IllegalArgumentException("unknown model " + model + " (nb, aode, mdl-aode, aodesr, waode, hnb, bn-k2, bn-hc, bn-tan)");
    }

    public static void main(String[] args) throws Exception {
        Instances data = new Instances(new BufferedReader(new FileReader(args[0])));
        String model = args[1];
        int warmup = Integer.parseInt(args[2]), rounds = Integer.parseInt(args[3]);
        int folds = args.length > 4 ? Integer.parseInt(args[4]) : 10;
        long seed = args.length > 5 ? Long.parseLong(args[5]) : 1;
        // a leading row-number attribute identifies the rows of each fold; it is deleted before training
        data.insertAttributeAt(new Attribute("__row__"), 0);
        for (int i = 0; i < data.numInstances(); i++) data.instance(i).setValue(0, i);
        data.setClassIndex(data.numAttributes() - 1);
        data.randomize(new Random(seed));
        data.stratify(folds);
        Instances[] train = new Instances[folds], test = new Instances[folds];
        for (int f = 0; f < folds; f++) {
            train[f] = data.trainCV(folds, f);
            test[f] = data.testCV(folds, f);
            StringBuilder line = new StringBuilder("test ").append(f);
            for (int i = 0; i < test[f].numInstances(); i++) line.append(' ').append((int) test[f].instance(i).value(0));
            System.out.println(line);
            train[f].deleteAttributeAt(0);
            test[f].deleteAttributeAt(0);
        }
        double[][][] distributions = new double[folds][][];
        for (int round = 0; round < warmup + rounds; round++) {
            for (int f = 0; f < folds; f++) {
                Classifier classifier = make(model);
                long start = System.nanoTime();
                classifier.buildClassifier(train[f]);
                long built = System.nanoTime();
                distributions[f] = new double[test[f].numInstances()][];
                for (int i = 0; i < test[f].numInstances(); i++) distributions[f][i] = classifier.distributionForInstance(test[f].instance(i));
                long predicted = System.nanoTime();
                if (round >= warmup) System.out.println("ms " + f + " " + (built - start) / 1e6 + " " + (predicted - built) / 1e6);
            }
        }
        for (int f = 0; f < folds; f++) {
            for (double[] dist : distributions[f]) {
                StringBuilder line = new StringBuilder("p ").append(f);
                for (double p : dist) line.append(' ').append(String.format("%.17g", p));
                System.out.println(line);
            }
        }
    }
}
