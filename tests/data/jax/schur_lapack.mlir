// jax.scipy.linalg.schur as JAX lowers it on the CPU (tests/jax_exports.cmake), against
// LAPACK's own ?gees (gen_lapack_values.py --gees).
// f64, jax's own test matrix (rank two: two zero eigenvalues)
func.func @gees_f64_iota() {
  %a = stablehlo.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0], [12.0, 13.0, 14.0, 15.0]]> : tensor<4x4xf64>
  %0:6 = stablehlo.custom_call @lapack_dgees_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}, api_version = 4 : i32} : (tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<4x4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<i32>, tensor<i32>)
  check.expect_almost_eq_const %0#0, dense<[[32.46424919657296, 13.416407864998739, -1.4200623210554046e-14, 1.1222555428693792e-14], [0.0, -2.464249196572981, 2.3631047188287877e-15, -1.534879163539058e-15], [0.0, 0.0, 2.273957027967812e-15, -1.6902197895806292e-15], [0.0, 0.0, 0.0, -1.0628555634409908e-16]]> : tensor<4x4xf64> {tolerance = 1.0E-10 : f64}
  check.expect_almost_eq_const %0#1, dense<[[0.1141764513873382, 0.8288327563197498, -0.41430241812305146, 0.35826457588965355], [0.3300045986655478, 0.4371463883638884, 0.8194378727038658, -0.1688833111309762], [0.545832745943757, 0.04546002040802469, -0.3959684910385808, -0.7370271054070057], [0.7616608932219657, -0.34622634754783893, -0.009166963542234785, 0.5476458406483292]]> : tensor<4x4xf64> {tolerance = 1.0E-10 : f64}
  check.expect_almost_eq_const %0#2, dense<[32.46424919657296, -2.464249196572981, 2.273957027967812e-15, -1.0628555634409908e-16]> : tensor<4xf64> {tolerance = 1.0E-12 : f64}
  check.expect_almost_eq_const %0#3, dense<[0.0, 0.0, 0.0, 0.0]> : tensor<4xf64> {tolerance = 1.0E-12 : f64}
  check.expect_eq_const %0#4, dense<0> : tensor<i32>
  check.expect_eq_const %0#5, dense<0> : tensor<i32>
  func.return
}

// -----

// f32 6 x 6: complex pairs as standardized 2 x 2 blocks
func.func @gees_f32_pairs() {
  %a = stablehlo.constant dense<[[0.4153662919998169, 0.6391898989677429, 1.1862324476242065, -0.6080336570739746, 1.4489271640777588, -0.7007144689559937], [-0.2516132593154907, -1.7498788833618164, -0.32806074619293213, -0.033769506961107254, 2.1051948070526123, 0.9360647201538086], [-0.06760337948799133, -0.3394516110420227, 0.5273869633674622, -2.1706786155700684, -0.5927802324295044, -0.3649474084377289], [-0.9522954225540161, -0.6666184067726135, -0.7537450790405273, -1.0015575885772705, -0.7063266038894653, 1.826276183128357], [-0.9984111785888672, -0.7978873252868652, -1.7724918127059937, -1.1744866371154785, 0.5108346939086914, -0.14666995406150818], [0.9503557085990906, -0.31510525941848755, 0.018444690853357315, 1.1429860591888428, 1.228872299194336, 1.3725308179855347]]> : tensor<6x6xf32>
  %0:6 = stablehlo.custom_call @lapack_sgees_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}, api_version = 4 : i32} : (tensor<6x6xf32>) -> (tensor<6x6xf32>, tensor<6x6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<i32>, tensor<i32>)
  check.expect_almost_eq_const %0#0, dense<[[-1.863814115524292, -0.7876548171043396, 1.3865439891815186, -0.7846531271934509, -1.1464965343475342, 1.588897705078125], [0.0, -1.3534883260726929, 2.3644893169403076, -0.617241621017456, 0.7890201807022095, -1.4364690780639648], [0.0, -0.2211521863937378, -1.3534883260726929, -0.39171066880226135, -1.3601592779159546, 0.1838131546974182], [0.0, 0.0, 0.0, 1.1473417282104492, 1.359277606010437, 0.8134269118309021], [0.0, 0.0, 0.0, -1.4666500091552734, 1.1473417282104492, 0.5322010517120361], [0.0, 0.0, 0.0, 0.0, 0.0, 2.3507883548736572]]> : tensor<6x6xf32> {tolerance = 1.0E-4 : f64}
  check.expect_almost_eq_const %0#1, dense<[[0.09640519320964813, 0.5471478700637817, 0.6821634769439697, -0.4586773216724396, -0.12265131622552872, 0.023679912090301514], [0.6885424256324768, -0.5803372263908386, 0.4017997086048126, 0.021469183266162872, 0.07877792418003082, -0.14494146406650543], [-0.3597593605518341, -0.3671473264694214, -0.07424333691596985, -0.7051607370376587, 0.22063852846622467, -0.4293377697467804], [-0.4965292811393738, -0.27065661549568176, 0.5082617402076721, 0.23035770654678345, 0.4470667243003845, 0.4110233783721924], [-0.2236330509185791, -0.39386415481567383, 0.09614603966474533, -0.13930568099021912, -0.8158801794052124, 0.31709450483322144], [0.30105647444725037, -0.025629296898841858, -0.31642454862594604, -0.46843579411506653, 0.25404807925224304, 0.7243004441261292]]> : tensor<6x6xf32> {tolerance = 1.0E-4 : f64}
  check.expect_almost_eq_const %0#2, dense<[-1.863814115524292, -1.3534883260726929, -1.3534883260726929, 1.1473417282104492, 1.1473417282104492, 2.3507883548736572]> : tensor<6xf32> {tolerance = 1.0E-5 : f64}
  check.expect_almost_eq_const %0#3, dense<[0.0, 0.7231265306472778, -0.7231265306472778, 1.4119434356689453, -1.4119434356689453, 0.0]> : tensor<6xf32> {tolerance = 1.0E-5 : f64}
  check.expect_eq_const %0#4, dense<0> : tensor<i32>
  check.expect_eq_const %0#5, dense<0> : tensor<i32>
  func.return
}

// -----

// complex<f64> 5 x 5: triangular T
func.func @gees_c128() {
  %a = stablehlo.constant dense<[[(0.16555996724596686, 1.0609114657878846), (-0.40219803492110473, 1.0335187932612822), (-0.061483491422077444, -0.34949234010329605), (-0.08942107329300242, 0.12070409038953152), (0.43644414463355896, -0.5973383531541312)], [(-0.501042971520566, 0.6757955887388953), (-0.029432967006938704, -0.13541984807900878), (-0.0369474471205771, 2.319695603525585), (-0.5461208755160227, 1.443105797426861), (-1.210921297480577, 1.5152149335941782)], [(0.4911419405308498, 0.31202963191935473), (0.25610568277682594, 0.6272617914316344), (0.44087652017455303, 0.8200236404047911), (1.3415437136368202, 0.31087804143081127), (-0.6912115761467341, 0.5315614664476934)], [(0.955045853099813, -1.452569681615106), (0.6048363761585506, -0.21170580441994324), (-1.3184233185740932, -2.4557643052343665), (0.2412397292902004, 0.07786343143961434), (-1.8418784250047258, -2.6059736232334965)], [(0.17042585851544212, -0.2646004509186275), (0.6299650529855803, 0.5269160098416326), (2.878955166382748, -0.4025994357058367), (0.29428671821943136, -0.21391409313153825), (-0.09280301656233131, 0.6169040651432331)]]> : tensor<5x5xcomplex<f64>>
  %0:5 = stablehlo.custom_call @lapack_zgees_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}, api_version = 4 : i32} : (tensor<5x5xcomplex<f64>>) -> (tensor<5x5xcomplex<f64>>, tensor<5x5xcomplex<f64>>, tensor<5xcomplex<f64>>, tensor<i32>, tensor<i32>)
  %tabs = stablehlo.abs %0#0 : (tensor<5x5xcomplex<f64>>) -> tensor<5x5xf64>
  check.expect_almost_eq_const %tabs, dense<[[3.7459136238874087, 2.2859222476106598, 0.17509478951696647, 1.3460719055920058, 1.8318217974536133], [0.0, 2.3044877997593063, 0.5815895136974537, 1.8399102914327252, 2.4741953458373316], [0.0, 0.0, 1.3306610425241758, 1.3658125770468594, 2.0565015857852544], [0.0, 0.0, 0.0, 1.4257003780042319, 0.9568805429655265], [0.0, 0.0, 0.0, 0.0, 0.6499912114726891]]> : tensor<5x5xf64> {tolerance = 1.0E-10 : f64}
  %vt = stablehlo.dot_general %0#1, %0#0, contracting_dims = [1] x [0] : (tensor<5x5xcomplex<f64>>, tensor<5x5xcomplex<f64>>) -> tensor<5x5xcomplex<f64>>
  %re = stablehlo.real %0#1 : (tensor<5x5xcomplex<f64>>) -> tensor<5x5xf64>
  %im = stablehlo.imag %0#1 : (tensor<5x5xcomplex<f64>>) -> tensor<5x5xf64>
  %nim = stablehlo.negate %im : tensor<5x5xf64>
  %conj = stablehlo.complex %re, %nim : tensor<5x5xcomplex<f64>>
  %vsh = stablehlo.transpose %conj, dims = [1, 0] : (tensor<5x5xcomplex<f64>>) -> tensor<5x5xcomplex<f64>>
  %rec = stablehlo.dot_general %vt, %vsh, contracting_dims = [1] x [0] : (tensor<5x5xcomplex<f64>>, tensor<5x5xcomplex<f64>>) -> tensor<5x5xcomplex<f64>>
  check.expect_almost_eq %rec, %a : tensor<5x5xcomplex<f64>>
  check.expect_almost_eq_const %0#2, dense<[(0.2174232861513139, 3.739598373123037), (0.9685139237608117, -2.091086989754593), (0.5180098861799496, 1.2256935048825879), (-1.4251866358558718, 0.03827036476481224), (0.4466797729052435, -0.47219249831933396)]> : tensor<5xcomplex<f64>> {tolerance = 1.0E-12 : f64}
  check.expect_eq_const %0#3, dense<0> : tensor<i32>
  check.expect_eq_const %0#4, dense<0> : tensor<i32>
  func.return
}

// -----

// complex<f32>, a batch
func.func @gees_c64_batched() {
  %a = stablehlo.constant dense<[[[(0.6761414, 0.77067953), (-0.28428146, -1.873277), (-1.3177788, 1.031345)], [(-0.8927241, -7.664728e-06), (0.40882257, 1.1446418), (-0.79040277, 0.50044984)], [(1.026504, -0.73412955), (-0.89392644, 2.2593455), (-1.9913412, -0.82252085)]], [[(0.34644383, 0.9007161), (-0.063055664, 0.97995764), (3.8078258, 0.29503784)], [(-0.10333277, 0.4949362), (-1.4963137, -1.0553606), (-2.4757125, -1.2988081)], [(-1.9513121, 0.67692757), (-1.1534247, -1.2061158), (0.38776582, 0.7942417)]]]> : tensor<2x3x3xcomplex<f32>>
  %0:5 = stablehlo.custom_call @lapack_cgees_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}, api_version = 4 : i32} : (tensor<2x3x3xcomplex<f32>>) -> (tensor<2x3x3xcomplex<f32>>, tensor<2x3x3xcomplex<f32>>, tensor<2x3xcomplex<f32>>, tensor<2xi32>, tensor<2xi32>)
  %tabs = stablehlo.abs %0#0 : (tensor<2x3x3xcomplex<f32>>) -> tensor<2x3x3xf32>
  check.expect_almost_eq_const %tabs, dense<[[[2.5133984088897705, 0.6910904049873352, 1.718119740486145], [0.0, 2.1877830028533936, 2.2982044219970703], [0.0, 0.0, 1.7071424722671509]], [[3.7839584350585938, 2.063717842102051, 1.757771611213684], [0.0, 0.6767703890800476, 2.2006285190582275], [0.0, 0.0, 2.9615793228149414]]]> : tensor<2x3x3xf32> {tolerance = 1.0E-4 : f64}
  %vt = stablehlo.dot_general %0#1, %0#0, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x3xcomplex<f32>>, tensor<2x3x3xcomplex<f32>>) -> tensor<2x3x3xcomplex<f32>>
  %re = stablehlo.real %0#1 : (tensor<2x3x3xcomplex<f32>>) -> tensor<2x3x3xf32>
  %im = stablehlo.imag %0#1 : (tensor<2x3x3xcomplex<f32>>) -> tensor<2x3x3xf32>
  %nim = stablehlo.negate %im : tensor<2x3x3xf32>
  %conj = stablehlo.complex %re, %nim : tensor<2x3x3xcomplex<f32>>
  %vsh = stablehlo.transpose %conj, dims = [0, 2, 1] : (tensor<2x3x3xcomplex<f32>>) -> tensor<2x3x3xcomplex<f32>>
  %rec = stablehlo.dot_general %vt, %vsh, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x3xcomplex<f32>>, tensor<2x3x3xcomplex<f32>>) -> tensor<2x3x3xcomplex<f32>>
  check.expect_almost_eq %rec, %a : tensor<2x3x3xcomplex<f32>>
  check.expect_almost_eq_const %0#2, dense<[[(1.8535445, 1.6975114), (-1.4208574, -1.663598), (-1.3390639, 1.0588878)], [(1.1712277, 3.5981336), (-0.047350332, -0.67511195), (-1.8859804, -2.2834253)]]> : tensor<2x3xcomplex<f32>> {tolerance = 1.0E-5 : f64}
  check.expect_eq_const %0#3, dense<0> : tensor<2xi32>
  check.expect_eq_const %0#4, dense<0> : tensor<2xi32>
  func.return
}

// -----

// f64, T only (mode 'N': vs comes back zero)
func.func @gees_f64_no_vectors() {
  %a = stablehlo.constant dense<[[-0.47380946689312753, -0.3499883626179665, -0.5428764246672164, -0.12202027864597964], [0.35442009605800634, -0.09356383572967261, 2.2211483368349003, 1.3930289948031043], [-1.01725185777765, -0.40602745519688, -2.4161159840120763, 0.08744445167629597], [-0.27214461183296346, -0.9824013300367647, -0.37429792875870405, 0.07534530936357463]]> : tensor<4x4xf64>
  %0:6 = stablehlo.custom_call @lapack_dgees_ffi(%a) {mhlo.backend_config = {mode = 78 : ui8, sort = 78 : ui8}, api_version = 4 : i32} : (tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<4x4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<i32>, tensor<i32>)
  check.expect_almost_eq_const %0#0, dense<[[-2.1689719990433054, 0.6742581378321393, -2.426806874431301, 0.9885026270402665], [0.0, -0.30846552899154805, 0.7856978004940754, -0.5231914363587142], [0.0, 0.0, -0.21535322461822393, 1.4197324379579002], [0.0, 0.0, -0.8801556335009098, -0.21535322461822393]]> : tensor<4x4xf64> {tolerance = 1.0E-10 : f64}
  check.expect_almost_eq_const %0#2, dense<[-2.1689719990433054, -0.30846552899154805, -0.21535322461822393, -0.21535322461822393]> : tensor<4xf64> {tolerance = 1.0E-12 : f64}
  check.expect_almost_eq_const %0#3, dense<[0.0, 0.0, 1.1178486048354788, -1.1178486048354788]> : tensor<4xf64> {tolerance = 1.0E-12 : f64}
  check.expect_eq_const %0#4, dense<0> : tensor<i32>
  check.expect_eq_const %0#5, dense<0> : tensor<i32>
  func.return
}

// -----

// f64 with isolated eigenvalues: gebal's permutations, undone on vs
func.func @gees_f64_isolated() {
  %a = stablehlo.constant dense<[[0.09737944868325406, 0.0, 0.0, 1.5, 0.0], [-0.35636980264641227, 0.6911538217082163, 0.0, 0.0, 0.0], [1.138407345699367, 0.822208131871855, -1.6339554144417223, 0.0, 0.0], [1.2228036421690343, -2.067393204458328, 0.44383347850410887, -2.2148442760142486, 0.0], [-1.5050895486164164, 0.26357264373365996, -2.036533463479499, -0.3347055756189761, 0.003969298354193743]]> : tensor<5x5xf64>
  %0:6 = stablehlo.custom_call @lapack_dgees_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}, api_version = 4 : i32} : (tensor<5x5xf64>) -> (tensor<5x5xf64>, tensor<5x5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<i32>, tensor<i32>)
  check.expect_almost_eq_const %0#0, dense<[[0.003969298354193743, -1.6519084132950808, 1.6194500101136549, 0.5452182008325931, -0.972408777423381], [0.0, 1.2449890825749095, 0.39810906530847556, 0.6384731058019057, 0.8284802044555687], [0.0, 0.0, 0.1951312454402755, -0.2825208306220525, 1.9095171416763375], [0.0, 0.0, 0.0, -2.339966121429889, -1.291644554199799], [0.0, 0.0, 0.0, 0.0, -2.160420626649796]]> : tensor<5x5xf64> {tolerance = 1.0E-10 : f64}
  check.expect_almost_eq_const %0#1, dense<[[0.0, 0.6994248357685431, -0.4231042085790838, 0.5755786834441828, -0.02229140994809182], [0.0, -0.4500505986180411, -0.6651930824400839, 0.034873103841742935, -0.5947743171874903], [0.0, 0.1480386680978348, -0.5945741447515612, -0.5968998164065714, 0.5179543882568899], [0.0, 0.5351111198073789, 0.15805878067819043, -0.5578563031524373, -0.6143857553216152], [1.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<5x5xf64> {tolerance = 1.0E-10 : f64}
  check.expect_almost_eq_const %0#2, dense<[0.003969298354193743, 1.2449890825749095, 0.1951312454402755, -2.339966121429889, -2.160420626649796]> : tensor<5xf64> {tolerance = 1.0E-12 : f64}
  check.expect_almost_eq_const %0#3, dense<[0.0, 0.0, 0.0, 0.0, 0.0]> : tensor<5xf64> {tolerance = 1.0E-12 : f64}
  check.expect_eq_const %0#4, dense<0> : tensor<i32>
  check.expect_eq_const %0#5, dense<0> : tensor<i32>
  func.return
}

// -----

// f64 badly scaled: gees permutes but does not scale
func.func @gees_f64_badly_scaled() {
  %a = stablehlo.constant dense<[[-0.5263687233511888, 0.03623336703758969, -0.012930897236161247, 0.0010954153192437271], [-4.743575214521859, -1.1152348664631508, -0.10304167170157456, -0.019469869813631642], [-109.14012639084379, 10.675845301021246, 0.6573492358738694, 0.0332901364253251], [58.5647252361901, 61.2842572472744, -2.705936050423818, -0.8999336629759013]]> : tensor<4x4xf64>
  %0:6 = stablehlo.custom_call @lapack_dgees_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}, api_version = 4 : i32} : (tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<4x4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<i32>, tensor<i32>)
  check.expect_almost_eq_const %0#0, dense<[[1.3546937795137484, 6.040130995396438, 97.80314045912318, -61.02717551549668], [0.0, -1.3566244268914438, 70.00337239483521, 30.801101631130066], [0.0, 0.0, -0.9411286847693332, -0.30573003442118696], [0.0, 0.0, 7.921736236755127, -0.9411286847693332]]> : tensor<4x4xf64> {tolerance = 1.0E-10 : f64}
  check.expect_almost_eq_const %0#1, dense<[[-0.004038806856425392, -0.014933618628247443, -0.9913219101453389, 0.1305432707558671], [-0.0061297945988272595, -0.036679575476743886, 0.1310362461701637, 0.9906798355425711], [0.4968354864204657, 0.8670145363836559, -0.01027417712586667, 0.03653401726009993], [-0.8678136972246364, 0.4967065426154032, -0.0021940692367429966, 0.013311028981442891]]> : tensor<4x4xf64> {tolerance = 1.0E-10 : f64}
  check.expect_almost_eq_const %0#2, dense<[1.3546937795137484, -1.3566244268914438, -0.9411286847693332, -0.9411286847693332]> : tensor<4xf64> {tolerance = 1.0E-12 : f64}
  check.expect_almost_eq_const %0#3, dense<[0.0, 0.0, 1.5562495597874746, -1.5562495597874746]> : tensor<4xf64> {tolerance = 1.0E-12 : f64}
  check.expect_eq_const %0#4, dense<0> : tensor<i32>
  check.expect_eq_const %0#5, dense<0> : tensor<i32>
  func.return
}

// -----

// jaxlib's form before the FFI (dims and flags first)
func.func @gees_legacy_dgees() {
  %a = stablehlo.constant dense<[[1.0730509811510283, 0.14718077035146804, -0.7639552340528194, 0.7881696581202822], [-0.0043891243104711136, -0.6050210532741735, -0.19448378984513642, -0.44868396997389387], [0.35989346658672067, 1.8759088809543827, 0.992777621878974, -0.33053954120504897], [-1.419354252394888, -0.14301782041659492, 0.7930221395482683, 1.007640930809331]]> : tensor<4x4xf64>
  %b = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.constant dense<4> : tensor<i32>
  %jobvs = stablehlo.constant dense<86> : tensor<ui8>
  %sort = stablehlo.constant dense<78> : tensor<ui8>
  %0:6 = stablehlo.custom_call @lapack_dgees(%b, %n, %jobvs, %sort, %a) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<ui8>, tensor<ui8>, tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4x4xf64>, tensor<i32>, tensor<i32>)
  check.expect_almost_eq_const %0#0, dense<[[1.2111635367765046, -1.0913694518879529, -0.15116629117547975, 0.7878249027345737], [1.6805820226777857, 1.2111635367765046, 0.013898595040160978, -0.2663818150613546], [0.0, 0.0, 0.43395673928395717, -1.8447582124746953], [0.0, 0.0, 0.0, -0.3878353322718079]]> : tensor<4x4xf64> {tolerance = 1.0E-10 : f64}
  check.expect_almost_eq_const %0#3, dense<[[0.7552542081362662, 0.2844976607030728, 0.5583432464900155, -0.19210669235071035], [-0.11491701652796743, 0.15398797870821546, -0.2495716140629258, -0.949102624155942], [-0.6269394675649802, 0.08488879121714152, 0.7663134133012455, -0.11182374403330306], [0.15274836959559257, -0.9424132196619115, 0.19680086673490513, -0.22314721115162678]]> : tensor<4x4xf64> {tolerance = 1.0E-10 : f64}
  check.expect_almost_eq_const %0#1, dense<[1.2111635367765046, 1.2111635367765046, 0.43395673928395717, -0.3878353322718079]> : tensor<4xf64> {tolerance = 1.0E-12 : f64}
  check.expect_almost_eq_const %0#2, dense<[1.354302728692002, -1.354302728692002, 0.0, 0.0]> : tensor<4xf64> {tolerance = 1.0E-12 : f64}
  check.expect_eq_const %0#4, dense<0> : tensor<i32>
  check.expect_eq_const %0#5, dense<0> : tensor<i32>
  func.return
}

// -----

// the complex form before the FFI, rwork second
func.func @gees_legacy_zgees() {
  %a = stablehlo.constant dense<[[(-0.41495616292276394, 1.6031834131113607), (0.3610632205672675, 1.0472120867029961), (-0.29201539307028523, 0.58623739672011)], [(1.3384557105747585, -0.9301976163220037), (-0.6126472547254966, 1.1827135013049461), (-1.35366056759549, -0.9295604966136667)], [(0.817928030656204, 0.7654839503673019), (0.6284566232335913, 0.3955831655937885), (0.6220838506230106, 0.479130679183462)]]> : tensor<3x3xcomplex<f64>>
  %b = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.constant dense<3> : tensor<i32>
  %jobvs = stablehlo.constant dense<86> : tensor<ui8>
  %sort = stablehlo.constant dense<78> : tensor<ui8>
  %0:6 = stablehlo.custom_call @lapack_zgees(%b, %n, %jobvs, %sort, %a) {api_version = 2 : i32} : (tensor<i32>, tensor<i32>, tensor<ui8>, tensor<ui8>, tensor<3x3xcomplex<f64>>) -> (tensor<3x3xcomplex<f64>>, tensor<3xf64>, tensor<3xcomplex<f64>>, tensor<3x3xcomplex<f64>>, tensor<i32>, tensor<i32>)
  %tabs = stablehlo.abs %0#0 : (tensor<3x3xcomplex<f64>>) -> tensor<3x3xf64>
  check.expect_almost_eq_const %tabs, dense<[[0.7182618593012693, 1.2998907321073214, 1.983880989641639], [0.0, 1.9869606109718978, 0.8211030908805821], [0.0, 0.0, 1.7846734337202406]]> : tensor<3x3xf64> {tolerance = 1.0E-10 : f64}
  %vt = stablehlo.dot_general %0#3, %0#0, contracting_dims = [1] x [0] : (tensor<3x3xcomplex<f64>>, tensor<3x3xcomplex<f64>>) -> tensor<3x3xcomplex<f64>>
  %re = stablehlo.real %0#3 : (tensor<3x3xcomplex<f64>>) -> tensor<3x3xf64>
  %im = stablehlo.imag %0#3 : (tensor<3x3xcomplex<f64>>) -> tensor<3x3xf64>
  %nim = stablehlo.negate %im : tensor<3x3xf64>
  %conj = stablehlo.complex %re, %nim : tensor<3x3xcomplex<f64>>
  %vsh = stablehlo.transpose %conj, dims = [1, 0] : (tensor<3x3xcomplex<f64>>) -> tensor<3x3xcomplex<f64>>
  %rec = stablehlo.dot_general %vt, %vsh, contracting_dims = [1] x [0] : (tensor<3x3xcomplex<f64>>, tensor<3x3xcomplex<f64>>) -> tensor<3x3xcomplex<f64>>
  check.expect_almost_eq %rec, %a : tensor<3x3xcomplex<f64>>
  check.expect_almost_eq_const %0#2, dense<[(0.6977417536833368, 0.17045980081479095), (0.2801743346839228, 1.9671082358981262), (-1.3834356553925098, 1.1274595568868497)]> : tensor<3xcomplex<f64>> {tolerance = 1.0E-12 : f64}
  check.expect_eq_const %0#4, dense<0> : tensor<i32>
  check.expect_eq_const %0#5, dense<0> : tensor<i32>
  func.return
}

// -----

// jaxlib's first FFI call under the old name: values before vs
func.func @gees_interim_sgees() {
  %a = stablehlo.constant dense<[[1.5648622512817383, -0.7151231169700623, -1.4157410860061646], [1.104365348815918, 0.6535990834236145, 1.2015149593353271], [-0.10664261877536774, 0.720370352268219, -0.2421824038028717]]> : tensor<3x3xf32>
  %0:6 = stablehlo.custom_call @lapack_sgees(%a) {mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<i32>, tensor<i32>)
  check.expect_almost_eq_const %0#0, dense<[[1.4660996198654175, 1.3563038110733032, -0.07478547096252441], [-0.6726111173629761, 1.4660996198654175, -1.0647475719451904], [0.0, 0.0, -0.9559208154678345]]> : tensor<3x3xf32> {tolerance = 1.0E-4 : f64}
  check.expect_almost_eq_const %0#3, dense<[[0.839516282081604, 0.511018693447113, 0.18458707630634308], [0.5426511764526367, -0.771558403968811, -0.3320053815841675], [0.027241230010986328, -0.37889033555984497, 0.9250405430793762]]> : tensor<3x3xf32> {tolerance = 1.0E-4 : f64}
  check.expect_almost_eq_const %0#1, dense<[1.4660996198654175, 1.4660996198654175, -0.9559208154678345]> : tensor<3xf32> {tolerance = 1.0E-5 : f64}
  check.expect_almost_eq_const %0#2, dense<[0.955125629901886, -0.955125629901886, 0.0]> : tensor<3xf32> {tolerance = 1.0E-5 : f64}
  check.expect_eq_const %0#4, dense<0> : tensor<i32>
  check.expect_eq_const %0#5, dense<0> : tensor<i32>
  func.return
}

// -----

// the same for complex: rwork last
func.func @gees_interim_cgees() {
  %a = stablehlo.constant dense<[[(-0.48277196, -1.5298115), (-1.0244673, -0.25631005), (-0.5869029, -1.4876683)], [(-1.3658155, -0.5488902), (-0.22044264, 0.060722895), (0.25911745, -1.2356335)], [(0.5938503, 0.7411266), (-1.2321068, -0.4427198), (-0.9722905, -0.29657638)]]> : tensor<3x3xcomplex<f32>>
  %0:6 = stablehlo.custom_call @lapack_cgees(%a) {mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}} : (tensor<3x3xcomplex<f32>>) -> (tensor<3x3xcomplex<f32>>, tensor<3xcomplex<f32>>, tensor<3x3xcomplex<f32>>, tensor<i32>, tensor<i32>, tensor<3xf32>)
  %tabs = stablehlo.abs %0#0 : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xf32>
  check.expect_almost_eq_const %tabs, dense<[[0.8614214658737183, 1.533613681793213, 0.9464135766029358], [0.0, 1.4695767164230347, 0.9954946637153625], [0.0, 0.0, 2.5628342628479004]]> : tensor<3x3xf32> {tolerance = 1.0E-4 : f64}
  %vt = stablehlo.dot_general %0#2, %0#0, contracting_dims = [1] x [0] : (tensor<3x3xcomplex<f32>>, tensor<3x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
  %re = stablehlo.real %0#2 : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xf32>
  %im = stablehlo.imag %0#2 : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xf32>
  %nim = stablehlo.negate %im : tensor<3x3xf32>
  %conj = stablehlo.complex %re, %nim : tensor<3x3xcomplex<f32>>
  %vsh = stablehlo.transpose %conj, dims = [1, 0] : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
  %rec = stablehlo.dot_general %vt, %vsh, contracting_dims = [1] x [0] : (tensor<3x3xcomplex<f32>>, tensor<3x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
  check.expect_almost_eq %rec, %a : tensor<3x3xcomplex<f32>>
  check.expect_almost_eq_const %0#1, dense<[(-0.040350564, 0.8604759), (0.58602595, -1.3476756), (-2.2211812, -1.2784657)]> : tensor<3xcomplex<f32>> {tolerance = 1.0E-5 : f64}
  check.expect_eq_const %0#3, dense<0> : tensor<i32>
  check.expect_eq_const %0#4, dense<0> : tensor<i32>
  func.return
}

// -----

// The same batch, symbolic (a shape-polymorphic export under vmap): the
// eigenvalues and info (the Schur form's checks above read static types).
func.func @gees_c64_batched_dynamic_batch() {
  %a = stablehlo.constant dense<[[[(0.6761414, 0.77067953), (-0.28428146, -1.873277), (-1.3177788, 1.031345)], [(-0.8927241, -7.664728e-06), (0.40882257, 1.1446418), (-0.79040277, 0.50044984)], [(1.026504, -0.73412955), (-0.89392644, 2.2593455), (-1.9913412, -0.82252085)]], [[(0.34644383, 0.9007161), (-0.063055664, 0.97995764), (3.8078258, 0.29503784)], [(-0.10333277, 0.4949362), (-1.4963137, -1.0553606), (-2.4757125, -1.2988081)], [(-1.9513121, 0.67692757), (-1.1534247, -1.2061158), (0.38776582, 0.7942417)]]]> : tensor<2x3x3xcomplex<f32>>
  %a_shape = stablehlo.constant dense<[2, 3, 3]> : tensor<3xi64>
  %a_dyn = stablehlo.dynamic_reshape %a, %a_shape : (tensor<2x3x3xcomplex<f32>>, tensor<3xi64>) -> tensor<?x3x3xcomplex<f32>>
  %0:5 = stablehlo.custom_call @lapack_cgees_ffi(%a_dyn) {mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}, api_version = 4 : i32} : (tensor<?x3x3xcomplex<f32>>) -> (tensor<?x3x3xcomplex<f32>>, tensor<?x3x3xcomplex<f32>>, tensor<?x3xcomplex<f32>>, tensor<?xi32>, tensor<?xi32>)
  check.expect_almost_eq_const %0#2, dense<[[(1.8535445, 1.6975114), (-1.4208574, -1.663598), (-1.3390639, 1.0588878)], [(1.1712277, 3.5981336), (-0.047350332, -0.67511195), (-1.8859804, -2.2834253)]]> : tensor<2x3xcomplex<f32>> {tolerance = 1.0E-5 : f64}
  check.expect_eq_const %0#3, dense<0> : tensor<2xi32>
  check.expect_eq_const %0#4, dense<0> : tensor<2xi32>
  func.return
}
